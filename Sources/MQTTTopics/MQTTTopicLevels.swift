/// The `/`-separated levels of a topic name or filter, as views into its UTF-8 bytes (no copies):
/// `a//b/` gives `a`, ``, `b`, ``; the empty string gives one empty level.
struct MQTTTopicLevels: IteratorProtocol {
    private let bytes: String.UTF8View
    /// Where the next level starts; nil after the last one.
    private var start: String.Index?

    init(_ topic: String) {
        bytes = topic.utf8
        start = bytes.startIndex
    }

    mutating func next() -> Substring.UTF8View? {
        guard let from = start else { return nil }
        if let slash = bytes[from...].firstIndex(of: UInt8(ascii: "/")) {
            start = bytes.index(after: slash)
            return bytes[from..<slash]
        }
        start = nil
        return bytes[from...]
    }
}

extension Substring.UTF8View {
    /// Whether this level is the multi-level wildcard `#`.
    var isHash: Bool { count == 1 && first == UInt8(ascii: "#") }
    /// Whether this level is the single-level wildcard `+`.
    var isPlus: Bool { count == 1 && first == UInt8(ascii: "+") }
}
