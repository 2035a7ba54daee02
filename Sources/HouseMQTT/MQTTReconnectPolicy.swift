import Foundation

/// Bounded exponential backoff with jitter between reconnect attempts.
///
/// The delay before attempt `n` (0-based) is `min(maximumDelay, initialDelay * multiplier^n)`,
/// reduced by a random fraction of at most `jitter`, so that many clients losing the same broker
/// do not come back in lock step. It never exceeds `maximumDelay`.
public struct MQTTReconnectPolicy: Sendable, Hashable {
    /// Delay before the first retry.
    public var initialDelay: Duration
    /// Upper bound of every delay.
    public var maximumDelay: Duration
    /// Growth factor per failed attempt (>= 1).
    public var multiplier: Double
    /// Fraction of the delay (0...1) that is randomly taken off.
    public var jitter: Double

    public init(
        initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(30),
        multiplier: Double = 2, jitter: Double = 0.25
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// The delay before reconnect attempt `attempt` (0 for the first retry).
    public func delay(forAttempt attempt: Int, using random: inout some RandomNumberGenerator) -> Duration {
        let initial = Self.seconds(initialDelay)
        let maximum = Self.seconds(maximumDelay)
        let exponent = Double(max(0, min(attempt, 62)))
        let base = min(maximum, initial * pow(max(1, multiplier), exponent))
        let j = min(1, max(0, jitter))
        let factor = j == 0 ? 1 : 1 - Double.random(in: 0..<1, using: &random) * j
        let seconds = max(0, min(maximum, base * factor))
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    func validate() throws {
        if initialDelay < .zero || maximumDelay < initialDelay {
            throw MQTTError.invalidConfiguration("reconnect delays must satisfy 0 <= initial (\(initialDelay)) <= maximum (\(maximumDelay))")
        }
        if !(multiplier >= 1) { throw MQTTError.invalidConfiguration("reconnect multiplier must be >= 1, got \(multiplier)") }
        if !(0...1).contains(jitter) { throw MQTTError.invalidConfiguration("reconnect jitter must be within 0...1, got \(jitter)") }
    }

    static func seconds(_ d: Duration) -> Double {
        let c = d.components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }
}
