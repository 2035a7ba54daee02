/// An HTTP/1.1 response to a controller, or an `EVENT/1.0` notification (same shape, its own
/// protocol word), as bytes on the wire.
public struct HAPResponse: Sendable, Equatable {
    public var status: Int
    public var contentType: String?
    public var body: [UInt8]
    /// `EVENT/1.0` instead of `HTTP/1.1`: an unsolicited characteristic change.
    public var isEvent: Bool

    public init(status: Int, contentType: String? = nil, body: [UInt8] = [], isEvent: Bool = false) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.isEvent = isEvent
    }

    public static let tlv8ContentType = "application/pairing+tlv8"
    public static let jsonContentType = "application/hap+json"

    /// A pairing answer.
    public static func tlv(_ tlv: TLV8) -> HAPResponse {
        HAPResponse(status: 200, contentType: tlv8ContentType, body: tlv.encoded())
    }

    /// A JSON answer (`/accessories`, `/characteristics`).
    public static func json(_ status: Int, _ body: [UInt8]) -> HAPResponse {
        HAPResponse(status: status, contentType: jsonContentType, body: body)
    }

    /// An event notification carrying `body` (`{"characteristics":[...]}`).
    public static func event(_ body: [UInt8]) -> HAPResponse {
        HAPResponse(status: 200, contentType: jsonContentType, body: body, isEvent: true)
    }

    public func encoded() -> [UInt8] {
        var head = "\(isEvent ? "EVENT/1.0" : "HTTP/1.1") \(status) \(Self.reason(status))\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 207: "Multi-Status"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 422: "Unprocessable Entity"
        case 470: "Connection Authorization Required"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
