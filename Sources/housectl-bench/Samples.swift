import Foundation
import Synchronization

/// A set of measurements of one figure (latencies in ms, or rates per second).
struct Samples: Sendable {
    var values: [Double]

    init(_ values: [Double] = []) { self.values = values }

    var isEmpty: Bool { values.isEmpty }

    /// The `p`-th percentile (0...100), nearest-rank on the sorted values.
    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.min(Swift.max(rank, 0), sorted.count - 1)]
    }

    var median: Double { percentile(50) }
    var min: Double { values.min() ?? .nan }
    var max: Double { values.max() ?? .nan }
}

/// A figure repeated over rounds: the median of the rounds and their spread.
struct Spread: Sendable {
    var rounds: [Double]

    init(_ rounds: [Double]) { self.rounds = rounds }

    var median: Double { Samples(rounds).median }

    /// "1.23 (1.10-1.40)" with `digits` decimals.
    func text(_ digits: Int = 2, unit: String = "") -> String {
        guard !rounds.isEmpty else { return "n/a" }
        let s = Samples(rounds)
        if rounds.count == 1 { return format(s.median, digits) + unit }
        return "\(format(s.median, digits))\(unit) (\(format(s.min, digits))-\(format(s.max, digits)))"
    }
}

/// Fixed decimals, with thousands as "k" for large rates.
func format(_ v: Double, _ digits: Int = 2) -> String {
    if v.isNaN { return "n/a" }
    if abs(v) >= 100_000 { return String(format: "%.0fk", v / 1000) }
    if abs(v) >= 1000 { return String(format: "%.0f", v) }
    return String(format: "%.\(digits)f", v)
}

extension Duration {
    /// The duration in milliseconds.
    var inMilliseconds: Double {
        let c = components
        return Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15
    }
}

/// A value behind a lock, shareable between tasks (a `Mutex` cannot be captured by escaping closures).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R {
        mutex.withLock { body(&$0) }
    }
}
