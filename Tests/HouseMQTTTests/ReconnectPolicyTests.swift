import Testing
@testable import HouseMQTT

/// A deterministic generator: returns the values it was given, in a cycle.
struct ScriptedRandom: RandomNumberGenerator, Sendable {
    var values: [UInt64]
    var index = 0
    mutating func next() -> UInt64 {
        defer { index = (index + 1) % values.count }
        return values[index]
    }
}

@Suite("Reconnect backoff")
struct ReconnectPolicyTests {
    @Test func growsExponentiallyAndIsBoundedWithoutJitter() {
        let policy = MQTTReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1), multiplier: 2, jitter: 0)
        var random = ScriptedRandom(values: [0])
        let delays = (0..<8).map { policy.delay(forAttempt: $0, using: &random) }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800),
                           .seconds(1), .seconds(1), .seconds(1), .seconds(1)])
    }

    @Test func hugeAttemptNumbersStayAtTheMaximum() {
        let policy = MQTTReconnectPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(30), multiplier: 10, jitter: 0)
        var random = SystemRandomNumberGenerator()
        #expect(policy.delay(forAttempt: 10_000, using: &random) == .seconds(30))
        #expect(policy.delay(forAttempt: Int.max, using: &random) == .seconds(30))
    }

    @Test func jitterTakesOffAtMostItsFractionAndDependsOnTheRandomSource() {
        let policy = MQTTReconnectPolicy(initialDelay: .seconds(8), maximumDelay: .seconds(8), multiplier: 2, jitter: 0.5)
        var low = ScriptedRandom(values: [0])
        var high = ScriptedRandom(values: [UInt64.max])
        let longest = policy.delay(forAttempt: 3, using: &low)
        let shortest = policy.delay(forAttempt: 3, using: &high)
        #expect(longest == .seconds(8))
        #expect(shortest >= .seconds(4))
        #expect(shortest < .milliseconds(4010))
        var system = SystemRandomNumberGenerator()
        for attempt in 0..<50 {
            let d = policy.delay(forAttempt: attempt, using: &system)
            #expect(d >= .seconds(4) && d <= .seconds(8))
        }
    }

    @Test func invalidPoliciesAreRejected() {
        #expect(throws: MQTTError.self) {
            try MQTTReconnectPolicy(initialDelay: .seconds(5), maximumDelay: .seconds(1)).validate()
        }
        #expect(throws: MQTTError.self) { try MQTTReconnectPolicy(multiplier: 0.5).validate() }
        #expect(throws: MQTTError.self) { try MQTTReconnectPolicy(jitter: 1.5).validate() }
    }
}
