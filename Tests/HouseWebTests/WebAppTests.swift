import Foundation
import HouseCore
import HouseDaemon
import HouseTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HouseWeb

/// Every route of the page over a real controller (the example house, simulated relays, the
/// embedded broker), through Hummingbird's router test client: what it answers, what it refuses,
/// and that the relay moved (or did not).
// One test at a time: a controller each, and the whole test run already starts about a hundred
// controllers at once (seventeen more at the same moment made other tests' MQTT connects time out).
@Suite(.serialized) struct WebAppTests {
    /// Runs `body` with the page of a running controller (no password, bound to loopback).
    func withPage(settings: WebSettings = WebSettings(port: 0), passwords: WebPasswordFile? = nil,
                  _ body: @escaping @Sendable (any TestClientProtocol, ControllerFixture, WebApp<ManualClock>) async throws -> Void) async throws {
        try await withController { fixture in
            let app = WebApp(controller: fixture.controller, settings: settings,
                             sessions: WebSessions(passwords: passwords, clock: fixture.clock))
            try await Application(router: app.router()).test(.router) { client in
                try await body(client, fixture, app)
            }
        }
    }

    static func headers(csrf: String?, json: Bool = true, cookie: String? = nil) -> HTTPFields {
        var h = HTTPFields()
        if let csrf { h[.csrfToken] = csrf }
        if json { h[.contentType] = "application/json" }
        if let cookie { h[.cookie] = cookie }
        return h
    }

    static func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    @Test func theStateListsEveryRoomWithItsDevicesAndTheNodes() async throws {
        try await withPage { client, fixture, _ in
            try await client.execute(uri: "/api/state", method: .get) { response in
                #expect(response.status == .ok)
                let overview = try JSONDecoder().decode(HouseOverview.self, from: Data(buffer: response.body))
                #expect(overview.rooms.map(\.id) == fixture.controller.configuration.rooms.map(\.id))
                let kitchen = try #require(overview.rooms.first { $0.id == "kitchen" })
                let light = try #require(kitchen.devices.first { $0.id == "kitchen-light" })
                #expect(light.state == .off)
                #expect(light.actions.contains(.on) && light.actions.contains(.off))
                let heater = try #require(overview.rooms.flatMap(\.devices).first { $0.id == "bathroom-heater" })
                #expect(heater.confirm)
                let door = try #require(overview.rooms.flatMap(\.devices).first { $0.id == "garage-door" })
                #expect(door.actions == [.open, .close], "an opener has no position to set")
                #expect(overview.nodes.first { $0.id == "pi-main" }?.online == true)
                #expect(overview.nodes.first { $0.id == "pi-main" }?.primary == true)
            }
        }
    }

    @Test func aTapGoesThroughTheBusAndSwitchesTheRelay() async throws {
        try await withPage { client, fixture, app in
            let csrf = app.sessions.openCSRF
            try await client.execute(uri: "/api/devices/kitchen-light", method: .post, headers: Self.headers(csrf: csrf),
                                     body: ByteBuffer(string: #"{"state":"ON"}"#)) { response in
                #expect(response.status == .ok)
                let status = try Self.object(response)["status"] as? String
                #expect(status == "done")
            }
            #expect(fixture.relayIsOn("kitchen-light") == true)
            let history = try fixture.controller.store.history(limit: 5)
            #expect(history.last?.source == "web", "the page's commands are from source web")
            try await client.execute(uri: "/api/state", method: .get) { response in
                let overview = try JSONDecoder().decode(HouseOverview.self, from: Data(buffer: response.body))
                #expect(overview.rooms.flatMap(\.devices).first { $0.id == "kitchen-light" }?.state == .on)
            }
        }
    }

    @Test func aPostWithoutTheTokenOrFromAnotherSiteChangesNothing() async throws {
        try await withPage { client, fixture, app in
            let body = ByteBuffer(string: #"{"state":"ON"}"#)
            // No token, a wrong token, a form post, another site's Origin.
            var cases: [(HTTPFields, HTTPResponse.Status)] = [
                (Self.headers(csrf: nil), .forbidden),
                (Self.headers(csrf: String(repeating: "0", count: 64)), .forbidden),
                (Self.headers(csrf: app.sessions.openCSRF, json: false), .unsupportedMediaType),
            ]
            var foreign = Self.headers(csrf: app.sessions.openCSRF)
            foreign[.origin] = "http://evil.example"
            cases.append((foreign, .forbidden))
            for (headers, status) in cases {
                try await client.execute(uri: "/api/devices/kitchen-light", method: .post, headers: headers, body: body) { response in
                    #expect(response.status == status)
                    let error = try Self.object(response)["error"]
                    #expect(error is String)
                }
            }
            for path in ["/api/mode", "/api/say", "/logout"] {
                try await client.execute(uri: path, method: .post, headers: Self.headers(csrf: nil),
                                         body: ByteBuffer(string: #"{"mode":"night","id":"x","text":"turn on the kitchen light"}"#)) { response in
                    #expect(response.status == .forbidden, "\(path) without the token")
                }
            }
            #expect(fixture.relayIsOn("kitchen-light") == false)
            #expect(fixture.edges(of: "kitchen-light").isEmpty)
        }
    }

    @Test func aGetNeverSwitches() async throws {
        try await withPage { client, fixture, _ in
            try await client.execute(uri: "/api/devices/kitchen-light?state=ON", method: .get) { response in
                #expect(response.status != .ok)
            }
            try await client.execute(uri: "/api/say?text=turn%20on%20the%20kitchen%20light", method: .get) { response in
                #expect(response.status != .ok)
            }
            #expect(fixture.edges(of: "kitchen-light").isEmpty)
        }
    }

    @Test func aLoopbackPageAnswersOnlyToLocalHostNames() {
        // The HTTP-level check (a foreign Host refused) is in the browser test, whose client sets Host.
        for host in ["localhost", "localhost:8080", "127.0.0.1:8080", "127.0.1.1", "[::1]:8080", "LOCALHOST"] {
            #expect(WebGuard.isLocalHost(host), "\(host)")
        }
        for host in ["evil.example", "evil.example:8080", "192.168.1.20:8080", "localhost.evil.example", "[::2]:80"] {
            #expect(!WebGuard.isLocalHost(host), "\(host)")
        }
    }

    @Test func theHeaterAsksFirstAndTheYesSwitchesIt() async throws {
        try await withPage { client, fixture, app in
            let csrf = app.sessions.openCSRF
            try await client.execute(uri: "/api/devices/bathroom-heater", method: .post, headers: Self.headers(csrf: csrf),
                                     body: ByteBuffer(string: #"{"state":"ON"}"#)) { response in
                let reply = try Self.object(response)
                #expect(reply["status"] as? String == "needsConfirmation")
                #expect((reply["question"] as? String)?.isEmpty == false)
            }
            #expect(fixture.relayIsOn("bathroom-heater") == false)
            try await client.execute(uri: "/api/devices/bathroom-heater", method: .post, headers: Self.headers(csrf: csrf),
                                     body: ByteBuffer(string: #"{"state":"ON","confirm":true}"#)) { response in
                let status = try Self.object(response)["status"] as? String
                #expect(status == "done")
            }
            #expect(fixture.relayIsOn("bathroom-heater") == true)
        }
    }

    @Test func badInputGetsAClearErrorAndChangesNothing() async throws {
        try await withPage { client, fixture, app in
            let csrf = app.sessions.openCSRF
            try await client.execute(uri: "/api/devices/kitchen-light", method: .post, headers: Self.headers(csrf: csrf),
                                     body: ByteBuffer(string: "{")) { response in
                #expect(response.status == .badRequest)
                let error = try Self.object(response)["error"] as? String
                #expect(error?.isEmpty == false)
            }
            try await client.execute(uri: "/api/devices/kitchen-light", method: .post, headers: Self.headers(csrf: csrf),
                                     body: ByteBuffer(string: #"{"state":"DANCE"}"#)) { response in
                #expect(response.status == .badRequest)
                let error = try Self.object(response)["error"] as? String
                #expect(error?.contains("ON, OFF") == true, "\(error ?? "")")
            }
            try await client.execute(uri: "/api/devices/kitchen-lite", method: .post, headers: Self.headers(csrf: csrf),
                                     body: ByteBuffer(string: #"{"state":"ON"}"#)) { response in
                #expect(response.status == .notFound)
                let error = try #require(try Self.object(response)["error"] as? String)
                #expect(error.contains("kitchen-lite") && error.contains("kitchen-light"), "names the devices that exist: \(error)")
            }
            try await client.execute(uri: "/api/devices/kitchen-light", method: .post, headers: Self.headers(csrf: csrf),
                                     body: ByteBuffer(string: String(repeating: "x", count: 20_000))) { response in
                #expect(response.status == .contentTooLarge)
            }
            try await client.execute(uri: "/today.svg?date=tomorrow", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            #expect(fixture.edges(of: "kitchen-light").isEmpty)
        }
    }

    @Test func aPhraseThatNeedsAChoiceIsFinishedByTheAnswer() async throws {
        try await withPage { client, fixture, app in
            let csrf = app.sessions.openCSRF
            var parameter = ""
            var option = ""
            try await client.execute(uri: "/api/say", method: .post, headers: Self.headers(csrf: csrf),
                                     body: ByteBuffer(string: #"{"id":"w1","text":"turn on the lamp"}"#)) { response in
                let reply = try Self.object(response)
                #expect(reply["status"] as? String == "needsChoice")
                let options = try #require(reply["options"] as? [[String: Any]])
                #expect(options.count >= 2)
                parameter = try #require(reply["pendingParameter"] as? String)
                option = try #require(options.compactMap { $0["id"] as? String }.first { $0 == "living-room" })
            }
            let answer = #"{"id":"w2","text":"turn on the lamp","answers":{"\#(parameter)":"\#(option)"}}"#
            try await client.execute(uri: "/api/say", method: .post, headers: Self.headers(csrf: csrf), body: ByteBuffer(string: answer)) { response in
                let status = try Self.object(response)["status"] as? String
                #expect(status == "done")
            }
            #expect(fixture.relayIsOn("living-floor-lamp") == true)
        }
    }

    @Test func aModeFromThePageIsTheHouseMode() async throws {
        try await withPage { client, _, app in
            try await client.execute(uri: "/api/mode", method: .post, headers: Self.headers(csrf: app.sessions.openCSRF),
                                     body: ByteBuffer(string: #"{"mode":"evening"}"#)) { response in
                let status = try Self.object(response)["status"] as? String
                #expect(status == "done")
            }
            try await client.execute(uri: "/api/state", method: .get) { response in
                let overview = try JSONDecoder().decode(HouseOverview.self, from: Data(buffer: response.body))
                #expect(overview.mode == "evening")
            }
            try await client.execute(uri: "/api/mode", method: .post, headers: Self.headers(csrf: app.sessions.openCSRF),
                                     body: ByteBuffer(string: #"{"mode":"party"}"#)) { response in
                let reply = try Self.object(response)
                #expect(reply["status"] as? String != "done")
            }
        }
    }

    @Test func thePagesTheirScriptAndPicturesAreServedFromTheBinary() async throws {
        try await withPage { client, _, app in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                let html = String(buffer: response.body)
                #expect(html.contains("Maple Cottage"))
                #expect(html.contains(app.sessions.openCSRF))
                #expect(response.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
                #expect(!html.contains("http://") && !html.contains("https://"), "nothing from the internet")
            }
            for (path, type) in [("/app.js", "text/javascript"), ("/app.css", "text/css")] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType]?.hasPrefix(type) == true)
                }
            }
            try await client.execute(uri: "/today.svg?date=2026-11-24", method: .get) { response in
                #expect(response.headers[.contentType]?.hasPrefix("image/svg+xml") == true)
                let svg = String(buffer: response.body)
                #expect(svg.contains(#"class="window" data-routine="good-morning""#))
                #expect(svg.contains(#"data-date="2026-11-24""#))
                #expect(svg.contains("GMT"))
            }
            // Today on the controller's clock (Tuesday 2026-11-24 12:00): the morning mode from 06:30.
            try await client.execute(uri: "/today.svg", method: .get) { response in
                let svg = String(buffer: response.body)
                #expect(svg.contains(#"data-date="2026-11-24""#) && svg.contains(#"class="now""#))
                #expect(DayPictureTests.modeTitles(svg) == ["morning for the house, 00:00-06:30, since Monday 2026-11-23 06:30",
                                                            "morning for the house, 06:30-24:00"])
            }
            try await client.execute(uri: "/energy.svg?days=3", method: .get) { response in
                #expect(String(buffer: response.body).contains(#"class="bar""#))
            }
        }
    }

    @Test func historyAndEnergyShowWhatThePageDid() async throws {
        try await withPage { client, fixture, app in
            try await client.execute(uri: "/api/devices/kitchen-light", method: .post, headers: Self.headers(csrf: app.sessions.openCSRF),
                                     body: ByteBuffer(string: #"{"state":"ON"}"#)) { _ in }
            fixture.clock.advance(by: .seconds(3600))
            try await client.execute(uri: "/api/history?limit=5", method: .get) { response in
                let records = try #require(JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]])
                let first = try #require(records.first)
                #expect(first["source"] as? String == "web")
                #expect((first["summary"] as? String)?.contains("kitchen-light") == true)
            }
            try await client.execute(uri: "/api/energy?days=2", method: .get) { response in
                let days = try JSONDecoder().decode([HouseEngine.EnergyDay].self, from: Data(buffer: response.body))
                #expect(days.count == 2)
                let kWh = try #require(days.last?.kWh["kitchen-light"])
                #expect(abs(kWh - 0.05) < 0.001, "50 W for an hour: \(kWh)")
            }
        }
    }
}
