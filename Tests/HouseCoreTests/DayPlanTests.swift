import Foundation
import HouseCore
import HouseTesting
import Testing

/// The day as the Today picture draws it, and the zone names people know.
@Suite struct DayPlanTests {
    static let calendar = HouseCalendar(timeZone: HouseZone(identifier: "Europe/London")!, latitude: 51.5, longitude: -0.13)

    static func instant(_ text: String) -> Date { calendar.parseLocal(text)! }

    @Test func theExampleHousesTuesdayHasItsWindowsRunsSunAndModes() throws {
        let config = try HouseFixtures.exampleConfiguration()
        let day = LocalDate("2026-11-24")!
        let ran = [DayPlan.Ran(routine: "good-morning", at: Self.instant("2026-11-24 06:37")),
                   DayPlan.Ran(routine: "good-morning", at: Self.instant("2026-11-23 06:31"))]
        let plan = DayPlan(config, day: day, ran: ran)
        #expect(plan.start == Self.instant("2026-11-24 00:00"))
        #expect(plan.end.timeIntervalSince(plan.start) == 86_400)
        // Good morning: relevant 06:00-09:00 on weekdays, runs 06:30 (with its random delay).
        let morning = try #require(plan.windows.first { $0.routine == "good-morning" })
        #expect(morning.start == Self.instant("2026-11-24 06:00") && morning.end == Self.instant("2026-11-24 09:00"))
        let run = try #require(plan.runs.first { $0.routine == "good-morning" })
        #expect(run.nominal == Self.instant("2026-11-24 06:30"))
        let routine = try #require(config.routine(id: "good-morning"))
        #expect(run.latest.timeIntervalSince(run.nominal) == Double(routine.jitter?.components.seconds ?? 0))
        // A window crossing midnight shows both its ends: Monday's night and Tuesday's evening.
        let night = plan.windows.filter { $0.routine == "good-night" }
        #expect(night.count == 2)
        #expect(night.allSatisfy { $0.start >= plan.start && $0.end <= plan.end })
        #expect(plan.sun.map(\.event) == [.dawn, .sunrise, .sunset, .dusk])
        #expect(plan.sun.map(\.at) == plan.sun.map(\.at).sorted())
        // Only that day's runs are marks of it.
        #expect(plan.ran == [ran[0]])
        // The morning mode from 06:30 (and from the day before until then), one span each.
        let modes = plan.modes.filter(\.planned)
        #expect(modes.allSatisfy { $0.start < $0.end })
        #expect(modes.contains { $0.mode == "morning" && $0.end == plan.end })
    }

    @Test func aTimedModeSetNowIsDrawnOverTheDay() throws {
        let config = try HouseFixtures.exampleConfiguration()
        var timeline = ModeTimeline(base: "day")
        timeline.set("away", duration: .seconds(2 * 3600), at: Self.instant("2026-11-24 23:00"))
        let rooms = Dictionary(uniqueKeysWithValues: config.rooms.map { ($0.id, timeline) })
        let plan = DayPlan(config, day: LocalDate("2026-11-24")!, timelines: rooms)
        let away = try #require(plan.modes.first { !$0.planned })
        #expect(away.mode == "away" && away.timed && away.rooms.isEmpty, "every room: the house")
        #expect(away.start == Self.instant("2026-11-24 23:00") && away.end == plan.end, "cut at the day's end")
    }

    @Test func theDayOfTheClockChangeHas23Hours() throws {
        let plan = DayPlan(try HouseFixtures.exampleConfiguration(), day: LocalDate("2026-03-29")!)
        #expect(plan.end.timeIntervalSince(plan.start) == 23 * 3600)
    }

    @Test func zonesAreNamedAsPeopleThereKnowThem() throws {
        let london = try #require(HouseZone(identifier: "Europe/London"))
        let berlin = try #require(HouseZone(identifier: "Europe/Berlin"))
        let summer = Date(timeIntervalSince1970: 1_782_000_000)  // 2026-06-21
        let winter = Date(timeIntervalSince1970: 1_795_521_600)  // 2026-11-24
        #expect(london.localName(for: summer) == "BST")
        #expect(london.localName(for: winter) == "GMT")
        #expect(berlin.localName(for: summer) == "CEST")
        #expect(berlin.localName(for: winter) == "CET")
        #expect(Self.calendar.dateTimeText(summer, zone: true).hasSuffix(" BST"))
    }

    @Test func theWebSectionIsReadAndAPageBeyondThisMachineNeedsAPassword() throws {
        let base = try String(contentsOfFile: HouseFixtures.repositoryRoot + "/config/house.yaml", encoding: .utf8)
        let example = try HouseFixtures.exampleConfiguration()
        #expect(example.web == WebSettings(bind: "127.0.0.1", port: 8080))
        func load(_ web: String) -> Result<HouseConfiguration, ConfigurationError> {
            let yaml = base.replacingOccurrences(of: "web:\n  port: 8080\n  bind: 127.0.0.1\n", with: web)
            do { return .success(try ConfigurationLoader().load(yaml: yaml, file: "house.yaml", boards: HouseFixtures.boards())) }
            catch { return .failure(error) }
        }
        let open = load("web:\n  port: 8080\n  bind: 0.0.0.0\n")
        guard case .failure(let error) = open else { Issue.record("a page on 0.0.0.0 without a password was accepted"); return }
        let line = base.components(separatedBy: "\n").firstIndex { $0 == "  bind: 127.0.0.1" }.map { $0 + 1 }
        #expect(error.diagnostics.contains { $0.line == line && $0.message.contains("web.password_file") }, "\(error.diagnostics)")
        let guarded = try load("web:\n  port: 8443\n  bind: 0.0.0.0\n  password_file: /etc/housectl/web-passwords\n").get()
        #expect(guarded.web == WebSettings(bind: "0.0.0.0", port: 8443, passwordFile: "/etc/housectl/web-passwords"))
        guard case .failure(let typo) = load("web:\n  prot: 8080\n") else { Issue.record("an unknown key was accepted"); return }
        #expect(typo.diagnostics.contains { $0.message.contains("prot") && $0.message.contains("port") })
        #expect(try load("").get().web == nil, "no section, no page")
    }
}
