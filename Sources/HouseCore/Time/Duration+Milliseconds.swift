extension Duration {
    /// The duration in whole milliseconds (rounded toward zero).
    public var wholeMilliseconds: Int64 {
        let c = components
        return c.seconds * 1000 + c.attoseconds / 1_000_000_000_000_000
    }
}
