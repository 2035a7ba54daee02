import Foundation
import Testing
@testable import HouseCore
import HouseTesting

@Suite struct ManualClockTests {
    @Test func sleeperWakesWhenClockPassesDeadline() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))
        let deadline = clock.now.advanced(by: .seconds(10))
        async let woke: WallInstant = {
            try await clock.sleep(until: deadline, tolerance: nil)
            return clock.now
        }()
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(5))
        let at = try await woke
        #expect(at == deadline)
    }

    @Test func systemClockStartingAtADayRunsFromIt() async throws {
        // A Saturday morning, whatever day the machine says (`serve --start-time`).
        let start = Date(timeIntervalSince1970: 1_795_851_000)  // 2026-11-28 07:30 UTC
        let clock = SystemWallClock(startingAt: start)
        let first = clock.now
        #expect(first >= WallInstant(start) && first < WallInstant(start).advanced(by: .seconds(5)))
        // It sleeps on the real pace: a deadline 20 ms after its own now passes in about that.
        try await clock.sleep(until: clock.now.advanced(by: .milliseconds(20)), tolerance: nil)
        #expect(clock.now >= first.advanced(by: .milliseconds(20)))
        #expect(SystemWallClock().offset == .zero)
    }

    @Test func durationParserReadsConfigForms() {
        #expect(DurationParser.parse("90s") == .seconds(90))
        #expect(DurationParser.parse("1h30") == .seconds(5400))
        #expect(DurationParser.parse("1h30m") == .seconds(5400))
        #expect(DurationParser.parse("500ms") == .milliseconds(500))
        #expect(DurationParser.parse("2 hours") == .seconds(7200))
        #expect(DurationParser.parse("soon") == nil)
        #expect(DurationParser.format(.seconds(5400)) == "1h30m")
    }

    @Test func timeEdgeParsesSunOffsets() {
        #expect(TimeEdge("sunset+30m") == .sun(.sunset, offset: .seconds(1800)))
        #expect(TimeEdge("06:00") == .clock(TimeOfDay(hour: 6, minute: 0)))
        #expect(TimeEdge("sunrise-1h") == .sun(.sunrise, offset: .seconds(-3600)))
        #expect(TimeEdge("25:00") == nil)
        #expect(TimeEdge("moonrise") == nil)
    }
}

@Suite struct WallInstantTextTests {
    /// The hand-written UTC text is what Foundation's ISO 8601 style writes, across leap years,
    /// month ends, before 1970 and at every millisecond digit count.
    @Test func iso8601UTCMatchesFoundationsStyle() {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
        var rng = SystemRandomNumberGenerator()
        var instants: [Int64] = [0, -1, 1, 999, 1000, 86_399_999, 86_400_000, -86_400_000, 951_782_400_000, 4_107_542_399_999,
                                 1_772_618_400_000, -2_208_988_800_000]
        for _ in 0..<2000 { instants.append(Int64.random(in: -2_208_988_800_000...4_102_444_800_000, using: &rng)) }
        for ms in instants {
            let instant = WallInstant(sinceEpoch: .milliseconds(ms))
            // Foundation's text for the whole second (a Double of milliseconds is not exact, and
            // the style truncates: .999 may come out .998), then the milliseconds counted here.
            let second = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
            let whole = Date(timeIntervalSince1970: Double(second)).formatted(style)
            let milli = ms - second * 1000
            let expected = whole.dropLast(4) + (milli < 10 ? "00" : milli < 100 ? "0" : "") + "\(milli)Z"
            #expect(instant.iso8601UTC == expected, "\(ms) ms")
        }
    }
}

@Suite struct LabelTextTests {
    /// The byte search behind device labels finds what `contains` finds.
    @Test func containsUTF8AgreesWithContains() {
        let pairs = [("kitchen light", "kitchen"), ("kitchen light", "light"), ("kitchen", "kitchen light"), ("hall", ""),
                     ("", "a"), ("café lamp", "café"), ("abcabd", "abd"), ("aaa", "aab"), ("bedroom lamp", "room l"),
                     ("living room", "living-room")]
        for (text, pattern) in pairs {
            #expect(text.containsUTF8(pattern) == text.contains(pattern), "\(text) / \(pattern)")
        }
    }
}
