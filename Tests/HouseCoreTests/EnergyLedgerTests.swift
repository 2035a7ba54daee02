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
            var ledger = EnergyLedger()
            var spans: [(WallInstant, WallInstant)] = []
            var t = t0
            var onSince: WallInstant? = nil
            for _ in 0..<Int.random(in: 0...40, using: &rng) {
                t = t.advanced(by: .seconds(Int.random(in: 0...600, using: &rng)))
                let on = Bool.random(using: &rng)
                ledger.record("d", on: on, at: t)
                if on, onSince == nil { onSince = t }
                if !on, let s = onSince { if s < t { spans.append((s, t)) }; onSince = nil }
            }
            let now = t.advanced(by: .seconds(300))
            for _ in 0..<20 {
                let a = t0.advanced(by: .seconds(Int.random(in: -600...30_000, using: &rng)))
                let b = a.advanced(by: .seconds(Int.random(in: 0...20_000, using: &rng)))
                var expected = Duration.zero
                for (s, e) in spans + (onSince.map { [($0, now)] } ?? []) {
                    let x = max(s, a), y = min(e, b)
                    if x < y { expected += x.duration(to: y) }
                }
                #expect(ledger.onTime("d", from: a, to: b, now: now) == expected)
            }
        }
    }
}
