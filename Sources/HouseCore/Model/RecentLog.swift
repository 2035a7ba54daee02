/// The newest `limit` elements of a stream that never ends (donations, a simulated chip's
/// writes), for memory that must not grow with a daemon's uptime. Up to twice `limit` are held;
/// the oldest go a limit's worth at a time, so an append never moves the whole log.
public struct RecentLog<Element> {
    /// How many of the newest elements are kept (nil: all of them).
    public let limit: Int?
    private var storage: [Element] = []

    /// An empty log keeping the newest `limit` elements (nil: all of them).
    public init(limit: Int?) {
        precondition(limit.map { $0 > 0 } ?? true, "a RecentLog keeps at least one element")
        self.limit = limit
    }

    public mutating func append(_ element: Element) {
        storage.append(element)
        if let limit, storage.count >= 2 * limit { storage.removeFirst(storage.count - limit) }
    }

    /// The kept elements, oldest first.
    public var elements: [Element] {
        guard let limit, storage.count > limit else { return storage }
        return Array(storage.suffix(limit))
    }

    /// The newest element.
    public var last: Element? { storage.last }
}

extension RecentLog: Sendable where Element: Sendable {}
