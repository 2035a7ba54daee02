extension HouseZone {
    /// A zone from the bytes of a TZif file (RFC 8536, versions 1 to 4); nil when they are not one.
    ///
    /// A version 2 or later file is read from its second, 64-bit part and its footer (the POSIX TZ
    /// rule that continues the table); a version 1 file from its 32-bit part alone.
    init?(identifier: String, tzif bytes: [UInt8]) {
        var reader = TZifReader(bytes: bytes)
        guard let first = reader.header() else { return nil }
        var header = first
        var timeSize = 4
        if first.version >= 2 {
            guard reader.skip(first.blockSize(timeSize: 4)), let second = reader.header() else { return nil }
            header = second
            timeSize = 8
        }
        guard let transitions = reader.times(header.timeCount, size: timeSize),
              let indices = reader.bytes(header.timeCount),
              let records = reader.bytes(header.typeCount * 6),
              let names = reader.bytes(header.charCount),
              reader.skip(header.leapCount * (timeSize + 4) + header.standardCount + header.utcCount),
              header.typeCount > 0, indices.allSatisfy({ Int($0) < header.typeCount }) else { return nil }
        var types: [LocalTimeType] = []
        for i in 0..<header.typeCount {
            let r = records[(i * 6)..<(i * 6 + 6)]
            let offset = Int(Int32(bitPattern: r.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }))
            let nameStart = Int(r[i * 6 + 5])
            guard nameStart < names.count else { return nil }
            let name = String(decoding: names[nameStart...].prefix { $0 != 0 }, as: UTF8.self)
            types.append(LocalTimeType(offset: offset, isDaylight: r[i * 6 + 4] != 0, name: name))
        }
        let rule = header.version >= 2 ? reader.footer().flatMap(PosixZoneRule.init) : nil
        self.init(identifier: identifier, transitions: transitions, transitionTypes: indices, types: types, rule: rule)
    }
}

/// Reads a TZif file front to back; every read is bounds-checked (nil past the end).
private struct TZifReader {
    struct Header {
        var version: Int
        var utcCount, standardCount, leapCount, timeCount, typeCount, charCount: Int

        /// The size of the data block after this header.
        func blockSize(timeSize: Int) -> Int {
            timeCount * timeSize + timeCount + typeCount * 6 + charCount + leapCount * (timeSize + 4) + standardCount + utcCount
        }
    }

    let bytes: [UInt8]
    var at = 0

    mutating func header() -> Header? {
        guard let magic = self.bytes(4), magic.elementsEqual("TZif".utf8), let version = self.bytes(1), skip(15),
              let counts = times(6, size: 4), counts.allSatisfy({ 0...(1 << 20) ~= $0 }) else { return nil }
        let v = version[0] == 0 ? 1 : Int(version[0]) - 0x30
        let c = counts.map(Int.init)
        return Header(version: v, utcCount: c[0], standardCount: c[1], leapCount: c[2], timeCount: c[3], typeCount: c[4], charCount: c[5])
    }

    mutating func bytes(_ n: Int) -> [UInt8]? {
        guard n >= 0, at + n <= bytes.count else { return nil }
        defer { at += n }
        return Array(bytes[at..<(at + n)])
    }

    mutating func skip(_ n: Int) -> Bool { bytes(n) != nil }

    /// `count` big-endian signed integers of `size` bytes.
    mutating func times(_ count: Int, size: Int) -> [Int64]? {
        guard let raw = bytes(count * size) else { return nil }
        return (0..<count).map { i in
            let word = raw[(raw.startIndex + i * size)..<(raw.startIndex + (i + 1) * size)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return size == 4 ? Int64(Int32(truncatingIfNeeded: word)) : Int64(bitPattern: word)
        }
    }

    /// The footer: a POSIX TZ rule between two newlines (empty when the file has none).
    mutating func footer() -> String? {
        guard at < bytes.count, bytes[at] == 0x0A, let end = bytes[(at + 1)...].firstIndex(of: 0x0A) else { return nil }
        let text = String(decoding: bytes[(at + 1)..<end], as: UTF8.self)
        return text.isEmpty ? nil : text
    }
}
