/// One HTTP/1.1 request from a HomeKit controller (HAP speaks a small HTTP/1.1: no chunked
/// bodies, one request at a time per connection, answered in order).
public struct HAPRequest: Sendable, Equatable {
    public var method: String
    /// The path without its query (`/characteristics`).
    public var path: String
    /// The query's parameters in order (`id=1.9,2.10&ev=1`), not percent-decoded: HAP's never need it.
    public var query: [(name: String, value: String)]
    /// Header fields with lower-cased names.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(method: String, path: String, query: [(name: String, value: String)] = [], headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    public static func == (a: HAPRequest, b: HAPRequest) -> Bool {
        a.method == b.method && a.path == b.path && a.headers == b.headers && a.body == b.body
            && a.query.map(\.name) == b.query.map(\.name) && a.query.map(\.value) == b.query.map(\.value)
    }

    /// The first query parameter called `name`.
    public func parameter(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}
