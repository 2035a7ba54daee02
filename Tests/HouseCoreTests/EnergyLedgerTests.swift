import Foundation
import Testing
@testable import HouseCore

/// The ledger's on-time within a range (running totals and binary searches) against the plain
/// sum over every interval, on random switch sequences and ranges.
@Suite struct EnergyLedgerTests {
    @Test func onTimeMatchesTheSumOverEveryInterval() {
        var rng = SeededJitterGenerator(seed: 42)
        let t0 = WallInstant(sinceEpoch: .seconds(1_800_000_000))
        for _ in 0..<50 {
            let (ledger, spans, onSince, t) = Self.randomSwitches(upTo: 40, from: t0, steps: 0...600, of: .seconds(1), using: &rng)
            let now = t.advanced(by: .seconds(300))
            for _ in 0..<20 {
                let a = t0.advanced(by: .seconds(Int.random(in: -600...30_000, using: &rng)))
                let b = a.advanced(by: .seconds(Int.random(in: 0...20_000, using: &rng)))
                let expected = Self.sum(spans + (onSince.map { [($0, now)] } ?? []), from: a, to: b)
                #expect(ledger.onTime("d", from: a, to: b, now: now) == expected)
            }
        }
    }

    /// A flood of switches in one second is one entry with its exact on-time; the ledger grows
    /// with the seconds a device was switched in, not with its switches.
    @Test func aBurstWithinASecondIsOneEntryWithItsExactOnTime() {
        let t0 = WallInstant(sinceEpoch: .seconds(1_800_000_000))
        var ledger = EnergyLedger()
        var spans: [(WallInstant, WallInstant)] = []
        // 10,000 switches 50 us apart (0.5 s): 5,000 intervals of 50 us on.
        for i in 0..<10_000 {
            let t = t0.advanced(by: .microseconds(50 * i))
            ledger.record("d", on: i % 2 == 0, at: t)
            if i % 2 == 1 { spans.append((t0.advanced(by: .microseconds(50 * (i - 1))), t)) }
        }
        #expect(ledger.entryCount("d") == 1)
        let end = t0.advanced(by: .seconds(10))
        #expect(ledger.onTime("d", from: t0, to: end, now: end) == .microseconds(250_000))
        #expect(ledger.onTime("d", from: t0, to: end, now: end) == Self.sum(spans, from: t0, to: end))
        // Switches once a second or slower stay one entry each, exactly as before.
        for i in 0..<10 { ledger.record("d", on: i % 2 == 0, at: t0.advanced(by: .seconds(2 + i * 2))) }
        #expect(ledger.entryCount("d") == 6)
    }

    /// Random switch sequences with sub-second gaps: a range that starts or ends inside a second
    /// of switches counts that second's on-time in proportion, so the ledger is at most a second
    /// off at each end of the range, and exact over the whole of it.
    @Test func coalescedSecondsAreAtMostASecondOffAtEachEndOfARange() {
        var rng = SeededJitterGenerator(seed: 7)
        let t0 = WallInstant(sinceEpoch: .seconds(1_800_000_000))
        for _ in 0..<50 {
            let switched = Self.randomSwitches(upTo: 200, from: t0, steps: 0...1_500, of: .milliseconds(1), using: &rng)
            var (ledger, spans) = (switched.ledger, switched.spans)
            // The last interval closed too, so that the whole range is exact.
            let off = switched.last.advanced(by: .milliseconds(1))
            if let s = switched.onSince { ledger.record("d", on: false, at: off); spans.append((s, off)) }
            let end = switched.last.advanced(by: .seconds(1))
            #expect(ledger.onTime("d", from: t0, to: end, now: end) == Self.sum(spans, from: t0, to: end))
            for _ in 0..<20 {
                let a = t0.advanced(by: .milliseconds(Int.random(in: -1_000...300_000, using: &rng)))
                let b = a.advanced(by: .milliseconds(Int.random(in: 0...300_000, using: &rng)))
                let error = ledger.onTime("d", from: a, to: b, now: end) - Self.sum(spans, from: a, to: b)
                #expect(error > .seconds(-2) && error < .seconds(2), "off by \(error) in \(a)..<\(b)")
            }
        }
    }

    /// Up to `count` random switches of device "d" from `t0`, each a random number of `unit`s
    /// (in `steps`) after the one before: the ledger that recorded them, the closed intervals
    /// they made, when the device is on since (nil when it is off) and the last switch's time.
    static func randomSwitches(upTo count: Int, from t0: WallInstant, steps: ClosedRange<Int>, of unit: Duration,
                               using rng: inout SeededJitterGenerator)
        -> (ledger: EnergyLedger, spans: [(WallInstant, WallInstant)], onSince: WallInstant?, last: WallInstant)
    {
        var ledger = EnergyLedger()
        var spans: [(WallInstant, WallInstant)] = []
        var t = t0
        var onSince: WallInstant? = nil
        for _ in 0..<Int.random(in: 0...count, using: &rng) {
            t = t.advanced(by: unit * Int.random(in: steps, using: &rng))
            let on = Bool.random(using: &rng)
            ledger.record("d", on: on, at: t)
            if on, onSince == nil { onSince = t }
            if !on, let s = onSince { if s < t { spans.append((s, t)) }; onSince = nil }
        }
        return (ledger, spans, onSince, t)
    }

    /// The on-time of `spans` within `a..<b`, interval by interval.
    static func sum(_ spans: [(WallInstant, WallInstant)], from a: WallInstant, to b: WallInstant) -> Duration {
        var total = Duration.zero
        for (s, e) in spans {
            let x = max(s, a), y = min(e, b)
            if x < y { total += x.duration(to: y) }
        }
        return total
    }
}
