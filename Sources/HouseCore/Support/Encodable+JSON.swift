extension Encodable {
    /// Compact JSON with sorted keys: every payload housectl publishes is written this way (the
    /// same value gives the same text), by `SortedJSONEncoder`. `fallback` when the value cannot
    /// be encoded (a NaN or an infinity).
    public func sortedJSON(fallback: String = "{}") -> String {
        (try? SortedJSONEncoder().encode(self)) ?? fallback
    }
}
