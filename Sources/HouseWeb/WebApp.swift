import Foundation
import HouseCore
import HouseDaemon
import HouseHomeKit
import HTTPTypes
import Hummingbird
import ServiceLifecycle

/// The page on the Pi: its routes over one controller. Every change goes through the controller's
/// command bus with the payloads of the MQTT topic API (a device's `set`, `mode/set`,
/// `intent/request`), from source `web`; reads (the house now, history, energy, the day's plan)
/// come straight from the controller. `router()` is what `WebService` serves and the tests call.
///
/// | route | what |
/// |---|---|
/// | `GET /` | the page (House, Say, Today, History) |
/// | `GET /login`, `POST /login`, `POST /logout` | with a password file only |
/// | `GET /app.js`, `GET /app.css` | the page's script and style |
/// | `GET /api/state` | the house now (`HouseOverview` as JSON) |
/// | `GET /api/events` | server-sent events: `state` with the house after every change |
/// | `POST /api/devices/{id}` | a device's `set` payload (`{"state":"ON"}`, `{"position":40}`, `"confirm":true`) |
/// | `POST /api/mode` | a `mode/set` payload (`{"mode":"away","duration":"2h"}`) |
/// | `POST /api/say` | an `intent/request` payload (`{"text":"good night house"}`, `answers`, `confirm`) |
/// | `GET /api/history?limit=N` | the latest handled intents |
/// | `GET /api/energy?days=N` | energy per metered device per day |
/// | `GET /api/suggestions` | what the household's habits suggest, and whether this user may answer |
/// | `POST /api/suggestions/{id}/accept`, `.../dismiss` | an answer, through `SuggestionDesk` (signed-in users) |
/// | `GET /today.svg?date=YYYY-MM-DD` | the day as a picture (`DayPicture`), with the habits suggested |
/// | `GET /energy.svg?days=N` | energy per device per day as bars (`EnergyChart`) |
/// | `GET /api/homekit` | the HomeKit bridge: paired controllers, and the setup code while none is (`HomeKitView`) |
/// | `GET /homekit.svg` | the setup URI's QR code while no controller is paired |
public struct WebApp<C: WallClock>: Sendable {
    public let controller: HouseController<C>
    public let sessions: WebSessions
    public let settings: WebSettings
    /// The HomeKit bridge the page shows the setup code of (nil: HomeKit is off).
    public let homekit: HomeKitBridge?
    /// Lists and answers the suggestions (the same as `housectl suggestions`); nil: the page
    /// shows none (a controller not loaded from a file).
    public let suggestions: SuggestionDesk?

    /// The largest request body the page accepts.
    static var bodyLimit: Int { 16 * 1024 }

    public init(controller: HouseController<C>, settings: WebSettings, sessions: WebSessions, homekit: HomeKitBridge? = nil,
                suggestions: SuggestionDesk? = nil) {
        self.controller = controller
        self.settings = settings
        self.sessions = sessions
        self.homekit = homekit
        self.suggestions = suggestions
    }

    /// Reads the password file the settings name, if any, and makes the app.
    public init(controller: HouseController<C>, settings: WebSettings, homekit: HomeKitBridge? = nil,
                suggestions: SuggestionDesk? = nil) throws(WebError) {
        let passwords = try settings.passwordFile.map { (path: String) throws(WebError) in try WebPasswordFile(path: path) }
        self.init(controller: controller, settings: settings, sessions: WebSessions(passwords: passwords, clock: controller.clock),
                  homekit: homekit, suggestions: suggestions)
    }

    /// Every route, behind `WebGuard`.
    public func router() -> Router<WebContext> {
        let router = Router(context: WebContext.self)
        router.add(middleware: WebGuard(sessions: sessions, loopback: settings.isLoopback))
        router.get("/") { _, context in page(context) }
        router.get("/app.js") { _, _ in WebResponses.body(PageScript.text, type: "text/javascript; charset=utf-8", cache: true) }
        router.get("/app.css") { _, _ in WebResponses.body(PageStyle.text, type: "text/css; charset=utf-8", cache: true) }
        router.get("/login") { request, _ in loginPage(request) }
        router.post("/login") { request, context in try await login(request, context) }
        router.post("/logout") { request, context in logout(context) }
        router.get("/api/state") { _, _ in WebResponses.json(await controller.overview()) }
        router.get("/api/events") { _, _ in events() }
        router.post("/api/devices/{id}") { request, context in try await device(request, context) }
        router.post("/api/mode") { request, _ in try await mode(request) }
        router.post("/api/say") { request, _ in try await say(request) }
        router.get("/api/history") { request, _ in history(request) }
        router.get("/api/energy") { request, _ in await WebResponses.json(controller.engine.energyByDay(days: days(request))) }
        router.get("/api/suggestions") { _, context in listSuggestions(context) }
        router.post("/api/suggestions/{id}/accept") { _, context in answer(context, accept: true) }
        router.post("/api/suggestions/{id}/dismiss") { _, context in answer(context, accept: false) }
        router.get("/today.svg") { request, _ in try await today(request) }
        router.get("/energy.svg") { request, _ in await energyChart(request) }
        router.get("/api/homekit") { _, _ in homekitSetup() }
        router.get("/homekit.svg") { _, _ in homekitQRCode() }
        return router
    }

    // MARK: Pages

    private func page(_ context: WebContext) -> Response {
        WebResponses.html(PageHTML.page(house: controller.configuration.house.name, csrf: context.session?.csrf ?? sessions.openCSRF,
                                        user: context.session?.user))
    }

    private func loginPage(_ request: Request) -> Response {
        guard sessions.requiresLogin else { return WebResponses.redirect("/") }
        if sessions.session(request.cookies[WebGuard.sessionCookie]?.value) != nil { return WebResponses.redirect("/") }
        return withLoginToken(PageHTML.login(house: controller.configuration.house.name, message: nil), request: request)
    }

    /// A login form with a token, also set as a cookie: the form's post must carry both
    /// (another site can make a browser post a form, but cannot read the cookie to fill it). The
    /// browser's own token when it has one: a second load of the form (a browser's request for
    /// /favicon.ico is sent here too) must not leave the first form's token without its cookie.
    private func withLoginToken(_ page: (String) -> String, request: Request, status: HTTPResponse.Status = .ok) -> Response {
        let sent = request.cookies[Self.loginCookie]?.value ?? ""
        let token = WebSessions.isToken(sent) ? sent : WebSessions.token()
        var response = WebResponses.html(page(token), status: status)
        response.setCookie(Cookie(name: Self.loginCookie, value: token, maxAge: 3600, path: "/login", httpOnly: true, sameSite: .strict))
        return response
    }

    static var loginCookie: String { "housectl_login" }

    private func login(_ request: Request, _ context: WebContext) async throws -> Response {
        guard sessions.requiresLogin else { return WebResponses.redirect("/") }
        var request = request
        let body = try await request.collectBody(upTo: Self.bodyLimit)
        let form = Self.formFields(String(buffer: body))
        let house = controller.configuration.house.name
        guard let token = request.cookies[Self.loginCookie]?.value, let sent = form["token"], WebSessions.same(token, sent) else {
            return withLoginToken(PageHTML.login(house: house, message: "The form was too old or came from elsewhere: try again."),
                                  request: request, status: .forbidden)
        }
        switch await sessions.login(user: form["user"] ?? "", password: form["password"] ?? "", from: context.remoteAddress) {
        case .accepted(let session):
            controller.logger.notice("web: \(session.user) logged in from \(context.remoteAddress)")
            var response = WebResponses.redirect("/")
            response.setCookie(Cookie(name: WebGuard.sessionCookie, value: session.id, maxAge: Int(WebSessions.idleLifetime.components.seconds),
                                      path: "/", httpOnly: true, sameSite: .strict))
            return response
        case .refused:
            controller.logger.warning("web: a failed login from \(context.remoteAddress)")
            return withLoginToken(PageHTML.login(house: house, message: "Wrong user or password."), request: request, status: .unauthorized)
        case .tooMany(let wait):
            let seconds = max(1, wait.components.seconds)
            var response = withLoginToken(PageHTML.login(house: house, message: "Too many failed logins: wait \(seconds) s."),
                                          request: request, status: .tooManyRequests)
            response.headers[.retryAfter] = "\(seconds)"
            return response
        }
    }

    private func logout(_ context: WebContext) -> Response {
        if let session = context.session { sessions.logout(session.id) }
        var response = WebResponses.redirect(sessions.requiresLogin ? "/login" : "/")
        response.setCookie(Cookie(name: WebGuard.sessionCookie, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict))
        return response
    }

    // MARK: Commands (through the bus, as the topic API's payloads)

    private func device(_ request: Request, _ context: WebContext) async throws -> Response {
        let id = context.parameters.get("id") ?? ""
        let configuration = controller.configuration
        guard let device = configuration.device(id: DeviceID(id)) else {
            let known = configuration.devices.filter { !$0.kind.supportedActions.isEmpty }.map(\.id.rawValue)
            return WebResponses.error(.notFound, "unknown device '\(id)'; devices: \(known.joined(separator: ", "))")
        }
        let topic = "web:/api/devices/\(id)"
        let command: DeviceSetCommand
        let payload = try await body(request)
        do {
            command = try CommandPayloadParser.deviceCommand(payload, topic: topic)
        } catch {
            return refused(error, topic: topic)
        }
        return reply(await controller.submit(command.intent(for: device), source: .web, answers: IntentAnswers(confirmed: command.confirmed)))
    }

    private func mode(_ request: Request) async throws -> Response {
        let topic = "web:/api/mode"
        let command: ModeSetCommand
        let payload = try await body(request)
        do {
            command = try CommandPayloadParser.modeCommand(payload, topic: topic)
        } catch {
            return refused(error, topic: topic)
        }
        return reply(await controller.submit(command.intent, source: .web))
    }

    private func say(_ request: Request) async throws -> Response {
        let topic = "web:/api/say"
        var intentRequest: IntentRequest
        let payload = try await body(request)
        do {
            intentRequest = try CommandPayloadParser.intentRequest(payload, topic: topic)
        } catch {
            return refused(error, topic: topic)
        }
        // The answer comes back here, never to a topic.
        intentRequest.replyTo = nil
        if intentRequest.id.isEmpty { intentRequest.id = "web-" + WebSessions.token().prefix(12) }
        return reply(await controller.submit(intentRequest, source: .web))
    }

    private func body(_ request: Request) async throws -> [UInt8] {
        var request = request
        let buffer = try await request.collectBody(upTo: Self.bodyLimit)
        return Array(buffer.readableBytesView)
    }

    private func reply(_ reply: IntentReply) -> Response {
        WebResponses.json(reply.json, status: reply.status == .busy ? .serviceUnavailable : .ok)
    }

    /// A payload the parser refused: 400 with its reason, logged like the topic API's.
    private func refused(_ error: DaemonError, topic: String) -> Response {
        controller.logger.warning("refused: \(error)")
        if case .malformedPayload(_, let reason) = error { return WebResponses.error(.badRequest, reason) }
        return WebResponses.error(.badRequest, error.description)
    }

    // MARK: Reads

    /// `state` events with the whole house: at once, then after every change that altered it;
    /// a comment every 15 s keeps proxies from closing the stream and finds dead browsers.
    private func events() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        let controller = self.controller
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await LiveStates(controller: controller).stream { text in
                try await writer.write(ByteBuffer(string: text))
            }
            try await writer.finish(nil)
        })
    }

    private func history(_ request: Request) -> Response {
        let limit = request.uri.queryParameters.get("limit").flatMap { Int($0) }.map { max(1, min($0, 200)) } ?? 30
        do {
            let calendar = HouseCalendar(house: controller.configuration.house)
            let records = try controller.store.history(limit: limit).reversed().map { HistoryView($0, calendar: calendar) }
            return WebResponses.json(records)
        } catch {
            return WebResponses.error(.internalServerError, "\(error)")
        }
    }

    private func days(_ request: Request) -> Int {
        request.uri.queryParameters.get("days").flatMap { Int($0) }.map { max(1, min($0, 35)) } ?? 7
    }

    private func today(_ request: Request) async throws -> Response {
        var day = controller.today
        if let text = request.uri.queryParameters.get("date"), !text.isEmpty {
            guard let parsed = LocalDate(String(text)) else {
                return WebResponses.error(.badRequest, "date must be YYYY-MM-DD, not '\(text)'")
            }
            day = parsed
        }
        let plan = try await controller.dayPlan(day)
        return WebResponses.svg(DayPicture(plan: plan, configuration: controller.configuration, now: controller.clock.now.date,
                                           habits: habitMarks(on: day)).svg)
    }

    private func energyChart(_ request: Request) async -> Response {
        let days = await controller.engine.energyByDay(days: days(request))
        return WebResponses.svg(EnergyChart(days: days, configuration: controller.configuration).svg)
    }

    private func homekitSetup() -> Response {
        guard let homekit else { return WebResponses.error(.notFound, "HomeKit is off (homekit: in house.yaml)") }
        return WebResponses.json(HomeKitView(homekit.setup))
    }

    private func homekitQRCode() -> Response {
        guard let setup = homekit?.setup else { return WebResponses.error(.notFound, "HomeKit is off (homekit: in house.yaml)") }
        guard setup.pairedControllers == 0 else { return WebResponses.error(.notFound, "the bridge is paired: it takes no other pairing") }
        do {
            return WebResponses.svg(try QRCode(encoding: setup.setupURI).svg(title: "HomeKit setup code of \(setup.name)"))
        } catch {
            return WebResponses.error(.internalServerError, "\(error)")
        }
    }

    /// The fields of an `application/x-www-form-urlencoded` body.
    static func formFields(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String { s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}
