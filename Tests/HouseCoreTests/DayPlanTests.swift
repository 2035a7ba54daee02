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

    /// The house-wide modes the routines plan for the day, as `mode HH:MM-HH:MM` in local time (the
    /// day's end is 24:00), `(temporary)` for a mode set for a while.
    static func plannedModes(_ plan: DayPlan) -> [String] {
        func time(_ d: Date) -> String { d == plan.end ? "24:00" : calendar.clockText(d) }
        return plan.modes.filter { $0.planned && $0.rooms.isEmpty }.map { span in
            "\(span.mode) \(time(span.start))-\(time(span.end))" + (span.timed ? " (temporary)" : "")
        }
    }

    @Test func aModeARoutineSetsAt0630IsPlannedFrom0630AfterTheModeCarriedOver() throws {
        let example = try HouseFixtures.exampleConfiguration()
        // A future Monday: the morning mode from Friday's run until 06:30, then Monday's own.
        let monday = DayPlan(example, day: LocalDate("2026-11-23")!)
        #expect(Self.plannedModes(monday) == ["morning 00:00-06:30", "morning 06:30-24:00"])
        let run = try #require(monday.modes.first { $0.planned && $0.start > monday.start })
        #expect(run.start == Self.instant("2026-11-23 06:30") && run.since == run.start)
        #expect(monday.modes.first?.since == Self.instant("2026-11-20 06:30"), "carried over from Friday's run")
        // Tuesday, the fixtures' today.
        #expect(Self.plannedModes(DayPlan(example, day: LocalDate("2026-11-24")!)) == ["morning 00:00-06:30", "morning 06:30-24:00"])
        // A Saturday: no routine sets a mode, Friday's morning goes on all day.
        #expect(Self.plannedModes(DayPlan(example, day: LocalDate("2026-11-28")!)) == ["morning 00:00-24:00"])

        // Every day: a temporary evening ends back in morning mode, the night lasts into the next day.
        let daily = try HouseFixtures.exampleConfiguration(routines: HouseFixtures.everyDayModeRoutines)
        let day = ["night 00:00-06:30", "morning 06:30-18:00", "evening 18:00-20:00 (temporary)", "morning 20:00-22:00", "night 22:00-24:00"]
        #expect(Self.plannedModes(DayPlan(daily, day: LocalDate("2026-11-24")!)) == day)
        // The clock changes at 01:00 GMT (23 hours) and at 02:00 BST (25 hours); the modes keep their local times.
        for (date, hours) in [("2026-03-29", 5.5), ("2026-10-25", 7.5)] {
            let plan = DayPlan(daily, day: LocalDate(date)!)
            #expect(Self.plannedModes(plan) == day, "\(date)")
            let morning = try #require(plan.modes.first { $0.mode == "morning" })
            #expect(morning.start.timeIntervalSince(plan.start) == hours * 3600, "\(date)")
            #expect(morning.start == Self.instant("\(date) 06:30"), "\(date)")
        }
        // Before a routine's first mode the house is in none; a mode set over a temporary one ends it.
        let dinner = """
              - id: dinner
                shortcut: Dinner time
                run_at: "18:00"
                intent: {mode: evening, duration: 5h}
            """
        #expect(Self.plannedModes(DayPlan(try HouseFixtures.exampleConfiguration(routines: dinner), day: LocalDate("2026-11-20")!)) == ["evening 18:00-23:00 (temporary)"])
        let fridays = try HouseFixtures.exampleConfiguration(routines: dinner + """

              - id: bedtime
                shortcut: Bedtime
                run_at: "22:00"
                relevant: {from: "21:00", to: "23:00", days: fri}
                intent: {mode: night}
            """)
        #expect(Self.plannedModes(DayPlan(fridays, day: LocalDate("2026-11-20")!))
                == ["night 00:00-18:00", "evening 18:00-22:00 (temporary)", "night 22:00-24:00"])
        #expect(Self.plannedModes(DayPlan(fridays, day: LocalDate("2026-11-21")!))
                == ["night 00:00-18:00", "evening 18:00-23:00 (temporary)", "night 23:00-24:00"])
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
