import Foundation
import HouseCore
import HouseTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HouseWeb

/// A page with a password file: nothing without a session, a login form protected by its own
/// token, a session cookie that is HttpOnly and SameSite, the session's CSRF token on every POST,
/// and failed logins limited per address.
// One test at a time: a controller each, and the whole test run already starts about a hundred
// controllers at once (seventeen more at the same moment made other tests' MQTT connects time out).
@Suite(.serialized) struct WebLoginTests {
    static let passwords = try! WebPasswordFile(contents: WebPasswordFile.entry(user: "alice", password: "correct horse", cost: 4),
                                                path: "test")

    func withPage(_ body: @escaping @Sendable (any TestClientProtocol, ControllerFixture, WebApp<ManualClock>) async throws -> Void) async throws {
        try await withController { fixture in
            let app = WebApp(controller: fixture.controller, settings: WebSettings(bind: "0.0.0.0", port: 0, passwordFile: "test"),
                             sessions: WebSessions(passwords: Self.passwords, clock: fixture.clock))
            try await Application(router: app.router()).test(.router) { client in
                try await body(client, fixture, app)
            }
        }
    }

    /// The login form's token and its cookie.
    static func loginForm(_ client: any TestClientProtocol) async throws -> (token: String, cookie: String) {
        try await client.execute(uri: "/login", method: .get) { response in
            #expect(response.status == .ok)
            let html = String(buffer: response.body)
            let token = try #require(html.firstMatch(of: /name="token" value="([0-9a-f]+)"/)?.1)
            let setCookie = try #require(response.headers[.setCookie])
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
            let cookie = try #require(setCookie.split(separator: ";").first)
            return (String(token), String(cookie))
        }
    }

    static func login(_ client: any TestClientProtocol, user: String = "alice", password: String) async throws -> TestResponse {
        let form = try await loginForm(client)
        var headers = HTTPFields()
        headers[.contentType] = "application/x-www-form-urlencoded"
        headers[.cookie] = form.cookie
        let body = "user=\(user)&password=\(password.replacingOccurrences(of: " ", with: "+"))&token=\(form.token)"
        return try await client.execute(uri: "/login", method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    @Test func nothingIsServedOrDoneWithoutASession() async throws {
        try await withPage { client, fixture, _ in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/login")
            }
            for path in ["/api/state", "/api/events", "/api/history", "/today.svg", "/api/homekit", "/homekit.svg"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .unauthorized, "\(path)")
                }
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            try await client.execute(uri: "/api/devices/kitchen-light", method: .post, headers: headers,
                                     body: ByteBuffer(string: #"{"state":"ON"}"#)) { response in
                #expect(response.status == .unauthorized)
            }
            #expect(fixture.edges(of: "kitchen-light").isEmpty)
        }
    }

    @Test func aLoginGivesASessionWhoseTokenEveryPostNeeds() async throws {
        try await withPage { client, fixture, app in
            let response = try await Self.login(client, password: "correct horse")
            #expect(response.status == .seeOther)
            let setCookie = try #require(response.headers[.setCookie])
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
            let cookie = String(try #require(setCookie.split(separator: ";").first))
            let csrf = try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { page in
                #expect(page.status == .ok)
                let html = String(buffer: page.body)
                #expect(!html.contains(app.sessions.openCSRF), "a session has a token of its own")
                return String(try #require(html.firstMatch(of: /name="csrf-token" content="([0-9a-f]+)"/)?.1))
            }
            var headers = HTTPFields()
            headers[.cookie] = cookie
            headers[.contentType] = "application/json"
            try await client.execute(uri: "/api/devices/kitchen-light", method: .post, headers: headers,
                                     body: ByteBuffer(string: #"{"state":"ON"}"#)) { response in
                #expect(response.status == .forbidden, "a session without its token")
            }
            #expect(fixture.relayIsOn("kitchen-light") == false)
            headers[.csrfToken] = csrf
            try await client.execute(uri: "/api/devices/kitchen-light", method: .post, headers: headers,
                                     body: ByteBuffer(string: #"{"state":"ON"}"#)) { response in
                #expect(response.status == .ok)
            }
            #expect(fixture.relayIsOn("kitchen-light") == true)
            // After logging out the cookie opens nothing.
            try await client.execute(uri: "/logout", method: .post, headers: headers) { response in
                #expect(response.status == .seeOther)
            }
            try await client.execute(uri: "/api/state", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    /// A browser asks for /favicon.ico with the login form open and is sent the form again: the
    /// second form keeps the browser's token, so the first one still logs in.
    @Test func theFormLoadedAgainKeepsTheBrowsersToken() async throws {
        try await withPage { client, _, _ in
            let first = try await Self.loginForm(client)
            let again = try await client.execute(uri: "/login", method: .get, headers: [.cookie: first.cookie]) { response in
                String(try #require(String(buffer: response.body).firstMatch(of: /name="token" value="([0-9a-f]+)"/)?.1))
            }
            #expect(again == first.token)
            var headers = HTTPFields()
            headers[.contentType] = "application/x-www-form-urlencoded"
            headers[.cookie] = first.cookie
            let login = try await client.execute(uri: "/login", method: .post, headers: headers,
                                                 body: ByteBuffer(string: "user=alice&password=correct+horse&token=\(first.token)")) { $0 }
            #expect(login.status == .seeOther)
            #expect(login.headers[.setCookie]?.contains("housectl_session=") == true)
            // A cookie that is no token is not taken as one.
            let forged = try await client.execute(uri: "/login", method: .get, headers: [.cookie: "housectl_login=x\"><script>"]) { response in
                String(buffer: response.body)
            }
            #expect(!forged.contains("<script>"))
        }
    }

    @Test func aLoginFormWithoutItsTokenIsRefused() async throws {
        try await withPage { client, _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/x-www-form-urlencoded"
            try await client.execute(uri: "/login", method: .post, headers: headers,
                                     body: ByteBuffer(string: "user=alice&password=correct+horse&token=abc")) { response in
                #expect(response.status == .forbidden)
                #expect(response.headers[.setCookie]?.contains("housectl_session") != true)
            }
        }
    }

    @Test func failedLoginsMakeTheAddressWaitEvenWithTheRightPassword() async throws {
        try await withPage { client, fixture, _ in
            for _ in 0..<WebSessions.failuresBeforeWait {
                #expect(try await Self.login(client, password: "wrong").status == .unauthorized)
            }
            let locked = try await Self.login(client, password: "correct horse")
            #expect(locked.status == .tooManyRequests)
            #expect(locked.headers[.retryAfter] == "60")
            fixture.clock.advance(by: .seconds(61))
            #expect(try await Self.login(client, password: "correct horse").status == .seeOther)
        }
    }

    @Test func thePasswordFileKeepsOnlyHashesAndSaysWhereItIsWrong() throws {
        #expect(throws: WebError.passwordFile(path: "p", line: 2, message:
            "the password of 'bob' is not a bcrypt hash ($2b$...): passwords are never kept in the clear; run housectl web passwd")) {
            try WebPasswordFile(contents: "# users\nbob:secret\n", path: "p")
        }
        #expect(throws: WebError.self) { try WebPasswordFile(contents: "\n# nobody\n", path: "p") }
        let entry = WebPasswordFile.entry(user: "carol", password: "s3cret pass", cost: 4)
        #expect(!entry.contains("s3cret"))
        let file = try WebPasswordFile(contents: entry, path: "p")
        #expect(file.check(user: "carol", password: "s3cret pass"))
        #expect(!file.check(user: "carol", password: "s3cret pasS"))
        #expect(!file.check(user: "dave", password: "s3cret pass"))
    }
}
