import HouseCore
import HTTPTypes
import Hummingbird

/// The page's responses: JSON, HTML, SVG, errors and redirects, each with headers that keep the
/// browser from caching state or framing the page.
enum WebResponses {
    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        body(text, type: "application/json; charset=utf-8", status: status)
    }

    static func json<T: Encodable>(_ value: T) -> Response {
        json(encode(value))
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        body(text, type: "text/html; charset=utf-8", status: status)
    }

    static func svg(_ text: String) -> Response {
        body(text, type: "image/svg+xml; charset=utf-8")
    }

    /// `{"error": message}` with `status`.
    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        json(encode(["error": message]), status: status)
    }

    static func redirect(_ location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    static func body(_ text: String, type: String, status: HTTPResponse.Status = .ok, cache: Bool = false) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = cache ? "max-age=3600" : "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        headers[.xFrameOptions] = "DENY"
        headers[.contentSecurityPolicy] = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// Compact JSON with sorted keys, slashes as they are.
    static func encode<T: Encodable>(_ value: T) -> String {
        (try? SortedJSONEncoder(escapingSlashes: false).encode(value)) ?? #"{"error":"cannot encode the answer"}"#
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let xFrameOptions = Self("X-Frame-Options")!
}
