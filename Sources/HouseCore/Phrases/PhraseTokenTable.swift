/// Token ids by word: an open-addressing table over FNV-1a hashes of the word's UTF-8 bytes.
/// Cheaper than `[String: Int32]` (no per-lookup hasher seeding) on the matcher's hot path.
final class PhraseTokenTable: Sendable {
    private let buckets: [Int32]
    private let keys: [[UInt8]]
    private let mask: Int

    init(_ vocabulary: [String: Int32]) {
        var size = 16
        while size < vocabulary.count * 4 { size <<= 1 }
        var buckets = [Int32](repeating: -1, count: size)
        var keys = [[UInt8]](repeating: [], count: vocabulary.count)
        for (word, id) in vocabulary {
            let bytes = Array(word.utf8)
            keys[Int(id)] = bytes
            var i = Int(truncatingIfNeeded: Self.hash(bytes)) & (size - 1)
            while buckets[i] >= 0 { i = (i + 1) & (size - 1) }
            buckets[i] = id
        }
        self.buckets = buckets
        self.keys = keys
        self.mask = size - 1
    }

    static func hash<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return h
    }

    /// The word's id, or -1 when no template or list uses it.
    func id(_ word: String) -> Int32 {
        var word = word
        return word.withUTF8 { bytes in
            var i = Int(truncatingIfNeeded: Self.hash(bytes)) & mask
            while true {
                let candidate = buckets[i]
                if candidate < 0 { return -1 }
                if keys[Int(candidate)].elementsEqual(bytes) { return candidate }
                i = (i + 1) & mask
            }
        }
    }
}
