import GRDB
import GRDBSQLite

/// A value bound to one `?` of a statement the state store runs (`Database.run(_:_:)`).
enum SQLValue {
    case text(String)
    case real(Double)
    case integer(Int64)
    case null

    static func integer(_ value: Int) -> SQLValue { .integer(Int64(value)) }
    static func bool(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }
    static func text(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
}

extension Database {
    /// Runs `sql`, a statement prepared once per connection and kept, with `values` bound straight
    /// to SQLite's parameters (GRDB's `StatementArguments` box each value and check the bindings
    /// against the statement's: most of a commit's time, which SQLite's own work was a tenth of).
    func run(_ sql: String, _ values: [SQLValue]) throws {
        try run(try cachedStatement(sql: sql).sqliteStatement, values, sql)
    }

    /// Inserts `rows` into `table` (`"history(at, source, ...)"`, `columns` of them): a
    /// multi-row statement (`VALUES (?, ?), (?, ?), ...`) for each `rowsPerStatement` rows, a
    /// one-row statement for each row left over (two statements per table, prepared once per
    /// connection and kept); `values` appends one row's values, `between` is called after each
    /// statement (a statement per row cost a commit about a fifth more in a flood).
    func insert<Rows: Collection>(into table: String, columns: Int, _ rows: Rows,
                                  values: (Rows.Element, inout [SQLValue]) -> Void, between: () -> Void = {}) throws {
        let tuple = "(" + repeatElement("?", count: columns).joined(separator: ", ") + ")"
        var start = rows.startIndex
        var bound: [SQLValue] = []
        bound.reserveCapacity(columns * Self.rowsPerStatement)
        while start != rows.endIndex {
            let full = rows.index(start, offsetBy: Self.rowsPerStatement, limitedBy: rows.endIndex)
            let end = full ?? rows.index(after: start)
            bound.removeAll(keepingCapacity: true)
            for row in rows[start..<end] { values(row, &bound) }
            precondition(bound.count == columns * rows.distance(from: start, to: end), "\(table): \(bound.count) values for \(rows.distance(from: start, to: end)) rows of \(columns)")
            let sql = "INSERT INTO \(table) VALUES " + repeatElement(tuple, count: full == nil ? 1 : Self.rowsPerStatement).joined(separator: ", ")
            try run(try cachedStatement(sql: sql).sqliteStatement, bound, sql)
            between()
            start = end
        }
    }

    /// Rows a multi-row INSERT holds at most (`insert(into:columns:_:values:between:)`).
    static let rowsPerStatement = 16

    private func run(_ raw: OpaquePointer, _ values: [SQLValue], _ sql: String) throws {
        defer { sqlite3_reset(raw) }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .text(let text) where text.isEmpty:
                // A null pointer would bind NULL, not the empty text.
                rc = sqlite3_bind_text(raw, index, "", 0, Self.transient)
            case .text(var text):
                rc = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { sqlite3_bind_text(raw, index, $0.baseAddress, Int32($0.count), Self.transient) }
                }
            case .real(let number): rc = sqlite3_bind_double(raw, index, number)
            case .integer(let number): rc = sqlite3_bind_int64(raw, index, number)
            case .null: rc = sqlite3_bind_null(raw, index)
            }
            guard rc == SQLITE_OK else { throw failure(rc, sql) }
        }
        let rc = sqlite3_step(raw)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw failure(rc, sql) }
    }

    private func failure(_ rc: Int32, _ sql: String) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: rc), message: sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }, sql: sql)
    }

    /// SQLite copies the text before the call returns (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}
