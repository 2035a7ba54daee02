import Foundation
import HouseCore
import HouseDaemon
import HouseTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HouseWeb

/// The page's suggestions over a real controller whose history holds the example household's
/// eight weeks: listed with their evidence, answered by a signed-in user through the same desk as
/// `housectl suggestions accept|dismiss`, refused with the reason otherwise, and drawn on the day.
// One test at a time: a controller each (see WebAppTests).
@Suite(.serialized) final class WebSuggestionsTests: Sendable {
    let directory = NSTemporaryDirectory() + "housectl-web-suggestions-\(UUID().uuidString)"
    let desk: SuggestionDesk
    /// Monday 2026-04-20 12:00 BST, the day after the eight weeks.
    let start = Date(timeIntervalSince1970: 1_776_682_800)

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: HouseFixtures.exampleConfigPath, toPath: directory + "/house.yaml")
        desk = SuggestionDesk(configPath: directory + "/house.yaml", devicesDirectory: HouseFixtures.devicesDirectory)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// The page of a controller whose store holds what the simulated household did.
    func withPage(passwords: WebPasswordFile? = nil,
                  _ body: @escaping @Sendable (any TestClientProtocol, ControllerFixture, WebApp<ManualClock>) async throws -> Void) async throws {
        let desk = self.desk
        try await withController(start: start) { fixture in
            let simulator = HouseholdSimulator.example(fixture.controller.configuration)
            for event in simulator.history(from: HouseholdSimulator.exampleStart, days: 56, habits: HouseholdSimulator.exampleHabits) {
                let did = switch event.subject {
                case .device(let id, let action): #"[{"action":"\#(action.rawValue)","device":"\#(id)"}]"#
                case .mode(let id): #"[{"mode":"\#(id)"}]"#
                case .routine(let id): #"[{"routine":"\#(id)"}]"#
                }
                try fixture.controller.store.appendHistory(HistoryRecord(at: event.time, source: "cli", kind: "control", summary: "-",
                                                                         outcome: "done", dialog: "-", did: did))
            }
            await fixture.controller.store.commit(logger: fixture.controller.logger)
            let settings = passwords == nil ? WebSettings(port: 0) : WebSettings(bind: "0.0.0.0", port: 0, passwordFile: "test")
            let app = WebApp(controller: fixture.controller, settings: settings,
                             sessions: WebSessions(passwords: passwords, clock: fixture.clock), suggestions: desk)
            try await Application(router: app.router()).test(.router) { client in
                try await body(client, fixture, app)
            }
        }
    }

    static func list(_ client: any TestClientProtocol, cookie: String? = nil) async throws -> [String: Any] {
        try await client.execute(uri: "/api/suggestions", method: .get, headers: cookie.map { [.cookie: $0] } ?? [:]) { response in
            #expect(response.status == .ok)
            return try WebAppTests.object(response)
        }
    }

    static func ids(_ view: [String: Any]) -> [String] {
        (view["suggestions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    @Test func withoutASignedInUserTheListIsShownAndAnAnswerIsRefusedWithWhy() async throws {
        try await withPage { client, _, app in
            let view = try await Self.list(client)
            #expect(view["canAnswer"] as? Bool == false)
            #expect((view["why"] as? String)?.contains("needs a signed-in user") == true)
            let items = try #require(view["suggestions"] as? [[String: Any]])
            let plug = try #require(items.first { ($0["devices"] as? [String]) == ["office-plug"] })
            #expect((plug["text"] as? String)?.hasPrefix("You turn on the office desk plug around ") == true)
            #expect((plug["evidence"] as? [String: Any])?["out_of"] as? Int ?? 0 >= 30)
            let id = try #require(plug["id"] as? String)
            try await client.execute(uri: "/api/suggestions/\(id)/accept", method: .post,
                                     headers: WebAppTests.headers(csrf: app.sessions.openCSRF), body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .forbidden)
                let error = try WebAppTests.object(response)["error"] as? String
                #expect(error?.contains("needs a signed-in user") == true)
            }
            #expect(!FileManager.default.fileExists(atPath: self.desk.acceptedPath))
        }
    }

    @Test func aSignedInUserAcceptsAndDismissesAndTheDayShowsTheHabits() async throws {
        try await withPage(passwords: WebLoginTests.passwords) { client, _, _ in
            let login = try await WebLoginTests.login(client, password: "correct horse")
            let cookie = String(try #require(login.headers[.setCookie]?.split(separator: ";").first))
            let csrf = try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { page in
                String(try #require(String(buffer: page.body).firstMatch(of: /name="csrf-token" content="([0-9a-f]+)"/)?.1))
            }
            let view = try await Self.list(client, cookie: cookie)
            #expect(view["canAnswer"] as? Bool == true)
            let items = try #require(view["suggestions"] as? [[String: Any]])
            let plug = try #require(items.first { ($0["devices"] as? [String]) == ["office-plug"] }?["id"] as? String)
            let hall = try #require(items.first { ($0["devices"] as? [String]) == ["hall-light"] }?["id"] as? String)
            // Monday's picture: the habits of the weekday suggestions, dotted.
            let picture = try await client.execute(uri: "/today.svg?date=2026-04-20", method: .get, headers: [.cookie: cookie]) { String(buffer: $0.body) }
            #expect(picture.contains(#"<rect class="habit" data-suggestion="\#(plug)""#))
            #expect(picture.contains(#"<rect class="habit" data-suggestion="\#(hall)""#))
            #expect(picture.contains("stroke-dasharray=\"2 3\""))
            let sunday = try await client.execute(uri: "/today.svg?date=2026-04-19", method: .get, headers: [.cookie: cookie]) { String(buffer: $0.body) }
            #expect(!sunday.contains(#"data-suggestion="\#(plug)""#), "a weekday habit is not drawn on a Sunday")

            let headers = WebAppTests.headers(csrf: csrf, cookie: cookie)
            try await client.execute(uri: "/api/suggestions/\(plug)/accept", method: .post, headers: headers, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .ok)
                let answer = try WebAppTests.object(response)
                #expect(answer["answer"] as? String == "accepted")
                #expect((answer["message"] as? String)?.contains(self.desk.acceptedPath) == true)
            }
            try await client.execute(uri: "/api/suggestions/\(hall)/dismiss", method: .post, headers: headers, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .ok)
            }
            let after = Self.ids(try await Self.list(client, cookie: cookie))
            #expect(!after.contains(plug) && !after.contains(hall))
            #expect(after.count == items.count - 2)
            // The same answers as the command line's: in the file, in the configuration read again.
            let configuration = try self.desk.configuration()
            #expect(configuration.suggestions.answers == SuggestionAnswers(accepted: [plug], dismissed: [hall]))
            #expect(configuration.routine(id: "office-desk-plug-on-weekday-mornings") != nil)
            try await client.execute(uri: "/api/suggestions/\(plug)/accept", method: .post, headers: headers, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .conflict)
                let error = try WebAppTests.object(response)["error"] as? String
                #expect(error?.contains("was accepted already") == true)
            }
            try await client.execute(uri: "/api/suggestions/s-nope/dismiss", method: .post, headers: headers, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .notFound)
            }
            let monday = try await client.execute(uri: "/today.svg?date=2026-04-20", method: .get, headers: [.cookie: cookie]) { String(buffer: $0.body) }
            #expect(!monday.contains(#"data-suggestion="\#(plug)""#))
        }
    }
}
