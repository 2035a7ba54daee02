/// A JSON value as HAP's `application/hap+json` carries it. Written by hand so that a `bool` is
/// `true`/`false`, an integer has no decimal point and key order is the one given; read through
/// `Decodable` (a controller may write a bool as `1` or `0`: `intValue` and `boolValue` both take it).
public indirect enum HAPJSON: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([HAPJSON])
    case object([(String, HAPJSON)])

    public static func == (a: HAPJSON, b: HAPJSON) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.int(let x), .int(let y)): x == y
        case (.double(let x), .double(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            self = .object(try keyed.allKeys.map { ($0.stringValue, try keyed.decode(HAPJSON.self, forKey: $0)) })
            return
        }
        if var list = try? decoder.unkeyedContainer() {
            var items: [HAPJSON] = []
            while !list.isAtEnd { items.append(try list.decode(HAPJSON.self)) }
            self = .array(items)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() { self = .null }
        else if let b = try? single.decode(Bool.self) { self = .bool(b) }
        else if let i = try? single.decode(Int.self) { self = .int(i) }
        else if let d = try? single.decode(Double.self) { self = .double(d) }
        else { self = .string(try single.decode(String.self)) }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The member `key` of an object.
    public subscript(_ key: String) -> HAPJSON? {
        if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    public var intValue: Int? {
        switch self {
        case .int(let i): i
        case .bool(let b): b ? 1 : 0
        case .double(let d) where d.rounded() == d && abs(d) < 1e15: Int(d)
        default: nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    public var boolValue: Bool? {
        switch self {
        case .bool(let b): b
        case .int(0): false
        case .int(1): true
        default: nil
        }
    }

    public var encoded: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    func write(to out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .int(let i): out += Array(String(i).utf8)
        case .double(let d): out += Array((d.isFinite ? (d.rounded() == d && abs(d) < 1e15 ? String(Int(d)) : String(d)) : "null").utf8)
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [92, 34]
            case UInt8(ascii: "\\"): out += [92, 92]
            case 0x0A: out += [92, UInt8(ascii: "n")]
            case 0x0D: out += [92, UInt8(ascii: "r")]
            case 0x09: out += [92, UInt8(ascii: "t")]
            case ..<0x20: out += Array(String(format: "\\u%04x", Int(byte)).utf8)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

import Foundation
