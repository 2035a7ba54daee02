import HouseCore
import Synchronization

/// Relays that record every call instead of touching GPIO (`RelaySwitching`, for tests of the
/// engine alone), and can be told to refuse or defer. The calls go to a shared `RelayCallLog`,
/// which the test reads while the engine owns the relays.
public struct RecordingRelays: RelaySwitching {
    public let log: RelayCallLog
    /// Each relay bank id's channel.
    private let channels: [DeviceID: RelayRef]
    private var on: [DeviceID: Bool] = [:]

    /// The relays of every device of `configuration` (or those of `node`).
    public init(configuration: HouseConfiguration, node: NodeID? = nil, log: RelayCallLog = RelayCallLog()) {
        var channels: [DeviceID: RelayRef] = [:]
        for d in configuration.devices where node == nil || d.node == node {
            for (id, ref) in d.relayChannels { channels[id] = ref }
        }
        self.channels = channels
        self.log = log
    }

    public mutating func perform(_ command: RelayCommand, on device: DeviceID, at now: WallInstant,
                                 events: inout [RelayEvent]) -> RelayResult {
        guard let ref = channels[device] else { return .refused(.unknownRelay(device)) }
        if let failure = log.failure { return .refused(.hardware(failure)) }
        switch command {
        case .on, .off:
            let target = command == .on
            log.record(.set(ref, on: target))
            on[device] = target
            return log.result ?? .switched(DeviceState(isOn: target))
        case .toggle:
            let target = !(on[device] ?? false)
            log.record(.set(ref, on: target))
            on[device] = target
            return log.result ?? .switched(DeviceState(isOn: target))
        case .pulse(let duration):
            log.record(.pulse(ref, duration ?? .zero))
            return log.result ?? .switched(.on)
        }
    }

    public var nextDeadline: WallInstant? { nil }

    public mutating func fireDueTimers(at now: WallInstant, events: inout [RelayEvent]) {}

    public mutating func shutdown(at now: WallInstant, events: inout [RelayEvent]) -> [RelayOutcome] { [] }

    public var states: [DeviceID: DeviceState] { on.mapValues { DeviceState(isOn: $0) } }
}

/// What `RecordingRelays` was asked, in order, and how it is to answer.
public final class RelayCallLog: Sendable {
    /// One recorded call.
    public enum Call: Sendable, Hashable {
        case set(RelayRef, on: Bool)
        case pulse(RelayRef, Duration)
    }

    private struct State {
        var calls: [Call] = []
        var failure: String?
        var result: RelayResult?
    }

    private let state = Mutex(State())

    public init() {}

    /// Calls in the order they were made.
    public var calls: [Call] { state.withLock { $0.calls } }

    /// Makes later calls answer `result` (as a relay bank does when a safety rule defers a switch).
    public func answer(_ result: RelayResult) { state.withLock { $0.result = result } }

    /// Makes every later call refuse with `message` as its hardware error (nil to stop failing).
    public func failNextCalls(_ message: String?) { state.withLock { $0.failure = message } }

    var failure: String? { state.withLock { $0.failure } }
    var result: RelayResult? { state.withLock { $0.result } }
    func record(_ call: Call) { state.withLock { $0.calls.append(call) } }
}
