import HouseCore
import HTTPTypes
import Hummingbird

/// The one gate of the page, in front of every route: a request must name a host of this machine
/// when the page is bound to loopback (no DNS rebinding), be logged in when there is a password
/// (the login page and the static files aside), and every POST must carry the page's CSRF token
/// in `X-CSRF-Token`, a JSON body on /api, and no `Origin` of another site.
struct WebGuard: RouterMiddleware {
    typealias Context = WebContext
    let sessions: WebSessions
    let loopback: Bool

    /// Paths anyone may get: the login page and what it needs.
    static let open: Set<String> = ["/login", "/app.css"]
    static let sessionCookie = "housectl_session"

    func handle(_ request: Request, context: WebContext, next: (Request, WebContext) async throws -> Response) async throws -> Response {
        if loopback, let host = request.head.authority, !Self.isLocalHost(host) {
            return WebResponses.error(.forbidden, "this page answers to localhost only (the Host header was \(host))")
        }
        if request.method == .post, let origin = request.headers[.origin] {
            let host = request.head.authority ?? ""
            if origin != "http://\(host)" && origin != "https://\(host)" {
                return WebResponses.error(.forbidden, "a request from another site (Origin \(origin)) is refused")
            }
        }
        let path = request.uri.path
        var context = context
        if sessions.requiresLogin && !Self.open.contains(path) {
            guard let session = sessions.session(request.cookies[Self.sessionCookie]?.value) else {
                if request.method == .get && !path.hasPrefix("/api/") && !path.hasSuffix(".svg") {
                    return WebResponses.redirect("/login")
                }
                return WebResponses.error(.unauthorized, "log in first")
            }
            context.session = session
        }
        if request.method == .post && path != "/login" {
            let expected = context.session?.csrf ?? sessions.openCSRF
            guard let token = request.headers[.csrfToken], WebSessions.same(token, expected) else {
                return WebResponses.error(.forbidden, "missing or wrong X-CSRF-Token: reload the page")
            }
            if path.hasPrefix("/api/"), !(request.headers[.contentType] ?? "").hasPrefix("application/json") {
                return WebResponses.error(.unsupportedMediaType, "send JSON (Content-Type: application/json)")
            }
        }
        return try await next(request, context)
    }

    /// Whether a Host header names this machine: localhost, 127.x.y.z or [::1], any port.
    static func isLocalHost(_ authority: String) -> Bool {
        var host = Substring(authority.lowercased())
        if host.hasPrefix("[") {
            host = host.prefix { $0 != "]" }.dropFirst()
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        return WebSettings.isLoopback(String(host))
    }
}

extension HTTPField.Name {
    /// The header that carries the page's CSRF token.
    static let csrfToken = Self("X-CSRF-Token")!
}
