import HouseCore

/// A `RelayDriver` that records every call instead of touching GPIO, and can be told to fail.
public actor FakeRelayDriver: RelayDriver {
    /// One recorded call.
    public enum Call: Sendable, Hashable {
        case set(RelayRef, on: Bool)
        case pulse(RelayRef, Duration)
    }

    /// Calls in the order they were made.
    public private(set) var calls: [Call] = []
    /// Channel states as last set.
    public private(set) var states: [RelayRef: Bool] = [:]
    private var failure: String?
    private var timing: RelayTiming = .now

    public init() {}

    /// Makes later calls answer `timing` (as a relay bank does when a safety rule defers a switch).
    public func answer(_ timing: RelayTiming) { self.timing = timing }

    /// Makes every later call throw `FakeDriverError(message)` (nil to stop failing).
    public func failNextCalls(_ message: String?) { failure = message }

    public func setRelay(_ relay: RelayRef, on: Bool) async throws -> RelayTiming {
        if let failure { throw FakeDriverError(message: failure) }
        calls.append(.set(relay, on: on))
        states[relay] = on
        return timing
    }

    public func pulseRelay(_ relay: RelayRef, for duration: Duration) async throws -> RelayTiming {
        if let failure { throw FakeDriverError(message: failure) }
        calls.append(.pulse(relay, duration))
        return timing
    }
}

/// The error fakes throw when told to fail.
public struct FakeDriverError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
