import Foundation

extension Encodable {
    /// Compact JSON with sorted keys: every payload housectl publishes is written this way (the
    /// same value gives the same text). `fallback` when the value cannot be encoded.
    public func sortedJSON(fallback: String = "{}") -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? fallback
    }
}
