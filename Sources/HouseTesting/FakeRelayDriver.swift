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

    public init() {}

    /// Makes every later call throw `FakeDriverError(message)` (nil to stop failing).
    public func failNextCalls(_ message: String?) { failure = message }

    public func setRelay(_ relay: RelayRef, on: Bool) async throws {
        if let failure { throw FakeDriverError(message: failure) }
        calls.append(.set(relay, on: on))
        states[relay] = on
    }

    public func pulseRelay(_ relay: RelayRef, for duration: Duration) async throws {
        if let failure { throw FakeDriverError(message: failure) }
        calls.append(.pulse(relay, duration))
    }
}

/// The error fakes throw when told to fail.
public struct FakeDriverError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
