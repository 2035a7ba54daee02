/// Reads HTTP/1.1 requests out of a byte stream as it arrives (plain before pair-verify, the
/// decrypted frames after), one complete request at a time. Total: any input gives a request,
/// "need more", or an error saying what was wrong; nothing it is given can make it trap.
public struct HAPRequestParser: Sendable {
    /// Longest request line and headers accepted (a controller's are a few hundred bytes).
    public static let maxHeaderBytes = 8192
    /// Longest body accepted by default (a `PUT /characteristics` of every characteristic of a large house).
    public static let maxBodyBytes = 256 * 1024

    private var buffer: [UInt8] = []
    /// The longest body this parser accepts (less before pair-verify: `HomeKitLimits.maxUnverifiedBody`).
    public var bodyLimit: Int

    public init(bodyLimit: Int = HAPRequestParser.maxBodyBytes) {
        self.bodyLimit = bodyLimit
    }

    /// Bytes waiting for the rest of their request.
    public var pendingCount: Int { buffer.count }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete request, or nil when more bytes are needed.
    public mutating func next() throws(HomeKitError) -> HAPRequest? {
        guard let end = Self.headerEnd(buffer) else {
            if buffer.count > Self.maxHeaderBytes { throw .malformedHTTP(reason: "headers longer than \(Self.maxHeaderBytes) bytes") }
            return nil
        }
        guard end <= Self.maxHeaderBytes else { throw .malformedHTTP(reason: "headers longer than \(Self.maxHeaderBytes) bytes") }
        guard let head = String(validating: buffer[..<end], as: UTF8.self) else { throw .malformedHTTP(reason: "headers are not UTF-8") }
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else {
            throw .malformedHTTP(reason: "request line is not 'METHOD /path HTTP/1.1'")
        }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw .malformedHTTP(reason: "header line without ':'") }
            let name = line[..<colon].lowercased().trimmingCharacters(in: " \t")
            headers[name] = String(line[line.index(after: colon)...]).trimmingCharacters(in: " \t")
        }
        if headers["transfer-encoding"] != nil { throw .malformedHTTP(reason: "chunked bodies are not part of HAP") }
        var length = 0
        if let value = headers["content-length"] {
            guard let n = Int(value), n >= 0 else { throw .malformedHTTP(reason: "Content-Length '\(value)' is not a number") }
            guard n <= bodyLimit else { throw .malformedHTTP(reason: "body of \(n) bytes, at most \(bodyLimit)") }
            length = n
        }
        let bodyStart = end + 4
        guard buffer.count >= bodyStart + length else { return nil }
        let body = Array(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeFirst(bodyStart + length)
        let target = String(requestLine[1])
        let (path, query) = Self.splitTarget(target)
        return HAPRequest(method: String(requestLine[0]).uppercased(), path: path, query: query, headers: headers, body: body)
    }

    static func splitTarget(_ target: String) -> (String, [(name: String, value: String)]) {
        guard let q = target.firstIndex(of: "?") else { return (target, []) }
        let query = target[target.index(after: q)...].split(separator: "&").map { pair -> (name: String, value: String) in
            if let eq = pair.firstIndex(of: "=") { return (String(pair[..<eq]), String(pair[pair.index(after: eq)...])) }
            return (String(pair), "")
        }
        return (String(target[..<q]), query)
    }

    package static func headerEnd(_ b: [UInt8]) -> Int? {
        guard b.count >= 4 else { return nil }
        for i in 0...(b.count - 4) where b[i] == 13 && b[i + 1] == 10 && b[i + 2] == 13 && b[i + 3] == 10 {
            return i
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        var s = Substring(self)
        while let f = s.first, chars.contains(f) { s = s.dropFirst() }
        while let l = s.last, chars.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
