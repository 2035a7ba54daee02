import Foundation
import Testing
@testable import HouseCore
import HouseTesting

/// The clock-driven runner and duration modes, on a ManualClock: advance, then await the events.
@Suite struct ScheduleRunnerTests {
    /// Evening mode at 18:00, then movie mode for 90 minutes at 20:00.
    static let eveningThenMovie = [
        Routine(id: "evening", shortcut: "Evening", runAt: schedEdge("18:00"), intent: .mode("evening", duration: nil, rooms: [])),
        Routine(id: "movie", shortcut: "Movie night", runAt: schedEdge("20:00"), intent: .mode("movie", duration: .seconds(5400), rooms: [])),
    ]

    /// Collects runner events and lets a test await the next one (no sleeps).
    final class Inbox: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [RunnerEvent] = []
        private var waiters: [(id: Int, continuation: CheckedContinuation<RunnerEvent?, Never>)] = []
        private var nextID = 0

        func put(_ e: RunnerEvent) {
            lock.lock()
            if waiters.isEmpty {
                events.append(e)
                lock.unlock()
            } else {
                let w = waiters.removeFirst()
                lock.unlock()
                w.continuation.resume(returning: e)
            }
        }

        /// The next event, or nil when the waiting task is cancelled (the event then stays queued).
        func next() async -> RunnerEvent? {
            let id = lock.withLock { nextID += 1; return nextID }
            return await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<RunnerEvent?, Never>) in
                    lock.lock()
                    if !events.isEmpty {
                        let e = events.removeFirst()
                        lock.unlock()
                        c.resume(returning: e)
                    } else if Task.isCancelled {
                        lock.unlock()
                        c.resume(returning: nil)
                    } else {
                        waiters.append((id, c))
                        lock.unlock()
                    }
                }
            } onCancel: {
                lock.lock()
                let index = waiters.firstIndex { $0.id == id }
                let waiter = index.map { waiters.remove(at: $0) }
                lock.unlock()
                waiter?.continuation.resume(returning: nil)
            }
        }

        var pendingCount: Int { lock.withLock { events.count } }

        /// Every event but `.planned` (recording the planned runs has tests of its own).
        func putUnlessPlanned(_ e: RunnerEvent) {
            if case .planned = e { return }
            put(e)
        }
    }

    /// Awaits the next event, failing after `seconds` of real time (a bound against hangs, not a
    /// sleep: generous, as machines running the tests may be busy).
    func next(_ inbox: Inbox, within seconds: Double = 30) async throws -> RunnerEvent {
        try await withThrowingTaskGroup(of: RunnerEvent?.self) { group in
            group.addTask { await inbox.next() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            return try #require(first, "no runner event within \(seconds)s")
        }
    }

    let cal = SchedulePlace.london

    func startRunner(_ routines: [Routine], at start: String, lastActive: String? = nil)
        -> (ManualClock, Inbox, RoutineRunner<ManualClock, SeededJitterGenerator>) {
        let clock = ManualClock(start: cal.at(start))
        let scheduler = RoutineScheduler(routines: routines, calendar: cal, rng: SeededJitterGenerator(seed: 3))
        return (clock, Inbox(), RoutineRunner(clock: clock, scheduler: scheduler, lastActive: lastActive.map(cal.at)))
    }

    @Test func emitsRunsAsTheClockReachesThem() async throws {
        let routines = [
            Routine(id: "morning", shortcut: "Good morning house", runAt: schedEdge("06:30"), intent: .mode("morning", duration: nil, rooms: [])),
            Routine(id: "night", shortcut: "Good night house", runAt: schedEdge("23:00"), intent: .mode("night", duration: nil, rooms: [])),
        ]
        let (clock, inbox, runner) = startRunner(routines, at: "2026-11-24 05:00")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await runner.run { inbox.putUnlessPlanned($0) } }
            guard case .started = try await next(inbox) else { Issue.record("expected .started"); return }
            await clock.waitForSleepers(1)
            clock.advance(to: WallInstant(cal.at("2026-11-24 06:29")))
            await clock.waitForSleepers(1)
            #expect(inbox.pendingCount == 0)
            clock.advance(to: WallInstant(cal.at("2026-11-24 06:30")))
            guard case .run(let r1, let intent1) = try await next(inbox) else { Issue.record("expected a run"); return }
            #expect(r1.routineID == "morning" && r1.due == cal.at("2026-11-24 06:30"))
            #expect(intent1 == .mode("morning", duration: nil, rooms: []))
            // The next runs come in order, each at its instant.
            await clock.waitForSleepers(1)
            clock.advance(to: WallInstant(cal.at("2026-11-24 23:00")))
            guard case .run(let r2, _) = try await next(inbox) else { Issue.record("expected a run"); return }
            await clock.waitForSleepers(1)
            clock.advance(to: WallInstant(cal.at("2026-11-25 06:30")))
            guard case .run(let r3, _) = try await next(inbox) else { Issue.record("expected a run"); return }
            #expect([r2.routineID, r3.routineID] == ["night", "morning"])
            #expect(r2.due == cal.at("2026-11-24 23:00") && r3.due == cal.at("2026-11-25 06:30"))
            group.cancelAll()
        }
    }

    @Test func clockJumpFollowsTheCatchUpPolicy() async throws {
        // The machine sleeps from Tuesday 05:00 to Wednesday 07:00 (the clock jumps): runs missed
        // meanwhile are not replayed one by one; the catch-up routine runs once, the other not.
        let window = TimeWindowSpec(from: schedEdge("06:00"), to: schedEdge("09:00"))
        let routines = [
            Routine(id: "morning", shortcut: "Good morning house", relevant: window, runAt: schedEdge("06:30"),
                    catchUp: .latest, intent: .mode("morning", duration: nil, rooms: [])),
            Routine(id: "blinds", shortcut: "Open the blinds", relevant: window, runAt: schedEdge("06:40"),
                    catchUp: .none, intent: .control(room: nil, device: "blinds", action: .on)),
        ]
        let (clock, inbox, runner) = startRunner(routines, at: "2026-11-24 05:00")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await runner.run { inbox.putUnlessPlanned($0) } }
            guard case .started = try await next(inbox) else { Issue.record("expected .started"); return }
            await clock.waitForSleepers(1)
            clock.advance(to: WallInstant(cal.at("2026-11-25 07:00")))
            guard case .run(let run, _) = try await next(inbox) else { Issue.record("expected the catch-up"); return }
            #expect(run.routineID == "morning")
            #expect(run.reason == .catchUp(missed: cal.at("2026-11-25 06:30")))
            #expect(run.due == cal.at("2026-11-25 07:00"))
            await clock.waitForSleepers(1)
            #expect(inbox.pendingCount == 0)
            // On time again the next day: both run as scheduled.
            clock.advance(to: WallInstant(cal.at("2026-11-26 06:30")))
            guard case .run(let a, _) = try await next(inbox) else { Issue.record("expected a run"); return }
            await clock.waitForSleepers(1)
            clock.advance(to: WallInstant(cal.at("2026-11-26 06:40")))
            guard case .run(let b, _) = try await next(inbox) else { Issue.record("expected a run"); return }
            #expect([a.routineID, b.routineID] == ["morning", "blinds"])
            #expect(a.reason == .scheduled && b.reason == .scheduled)
            group.cancelAll()
        }
    }

    /// `.planned` comes after the start's catch-up and after each run, with every routine's next
    /// run and its drawn delay.
    @Test func plannedRunsAreEmittedBeforeEachWait() async throws {
        let (clock, inbox, runner) = startRunner(Self.eveningThenMovie, at: "2026-11-24 19:00")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await runner.run { inbox.put($0) } }
            guard case .started = try await next(inbox) else { Issue.record("expected .started"); return }
            guard case .planned(let first) = try await next(inbox) else { Issue.record("expected .planned"); return }
            #expect(first.map(\.routineID) == ["movie", "evening"])
            #expect(first.map(\.due) == [cal.at("2026-11-24 20:00"), cal.at("2026-11-25 18:00")])
            await clock.waitForSleepers(1)
            clock.advance(to: WallInstant(cal.at("2026-11-24 20:00")))
            guard case .run = try await next(inbox) else { Issue.record("expected a run"); return }
            guard case .planned(let second) = try await next(inbox) else { Issue.record("expected .planned"); return }
            #expect(second.map(\.routineID) == ["evening", "movie"])
            group.cancelAll()
        }
    }

    @Test func catchUpIsEmittedAtStart() async throws {
        let routines = [
            Routine(id: "morning", shortcut: "Good morning house",
                    relevant: TimeWindowSpec(from: schedEdge("06:00"), to: schedEdge("09:00"), days: .weekdaysOnly),
                    runAt: schedEdge("06:30"), catchUp: .latest, intent: .mode("morning", duration: nil, rooms: [])),
        ]
        let (_, inbox, runner) = startRunner(routines, at: "2026-11-24 07:12", lastActive: "2026-11-24 02:00")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await runner.run { inbox.putUnlessPlanned($0) } }
            guard case .started(let start) = try await next(inbox) else { Issue.record("expected .started"); return }
            #expect(start.catchUp.count == 1)
            guard case .run(let run, _) = try await next(inbox) else { Issue.record("expected the catch-up"); return }
            #expect(run.reason == .catchUp(missed: cal.at("2026-11-24 06:30")))
            #expect(run.due == cal.at("2026-11-24 07:12"))
            group.cancelAll()
        }
    }

    @Test func modeTimelineStacksAndReverts() {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        var m = ModeTimeline(base: "home")
        #expect(m.set("movie", duration: .seconds(7200), at: t0)?.to == "movie")
        #expect(m.set("quiet", duration: .seconds(1800), at: t0.addingTimeInterval(600))?.to == "quiet")
        #expect(m.nextExpiry == t0.addingTimeInterval(2400))
        #expect(m.expire(at: t0.addingTimeInterval(2399)).isEmpty)
        #expect(m.expire(at: t0.addingTimeInterval(3000)).map(\.to) == ["movie"])
        #expect(m.expire(at: t0.addingTimeInterval(7200)) == [
            ModeChange(from: "movie", to: "home", at: t0.addingTimeInterval(7200), expired: "movie")])
        #expect(m.current == "home")
        // A mode without a duration cancels timed ones.
        m.set("party", duration: .seconds(600), at: t0.addingTimeInterval(8000))
        m.set("night", duration: nil, at: t0.addingTimeInterval(8100))
        #expect(m.nextExpiry == nil)
        #expect(m.current == "night")
        #expect(m.expire(at: t0.addingTimeInterval(9000)).isEmpty)
    }
}
