import HouseCore
import HouseHomeKit
import Synchronization

/// A house for the bridge's tests: states in memory, a write sets the state at once (a cover is
/// where it was sent), refused devices refuse, and `set` plays a change made elsewhere (a
/// switch from the CLI, a contact opening).
public final class FakeHomeKitHouse: HomeKitHouse {
    private struct State {
        var states: [DeviceID: HomeKitDeviceState]
        var writes: [HomeKitWrite] = []
        var listeners: [AsyncStream<(DeviceID, HomeKitDeviceState)>.Continuation] = []
    }
    private let state: Mutex<State>
    /// Devices whose writes are refused (as a `confirm: true` device is from HomeKit).
    public let refused: Set<DeviceID>

    public init(configuration: HouseConfiguration, refused: Set<DeviceID> = []) {
        var states: [DeviceID: HomeKitDeviceState] = [:]
        for device in configuration.devices {
            switch device.kind {
            case .cover where device.opener != nil: states[device.id] = HomeKitDeviceState(cover: .closed)
            case .cover: states[device.id] = HomeKitDeviceState(position: 0, targetPosition: 0, cover: .closed)
            case .contact: states[device.id] = HomeKitDeviceState(contactOpen: false)
            case .motion: states[device.id] = HomeKitDeviceState(motionDetected: false)
            case .sensor: states[device.id] = HomeKitDeviceState(temperature: 20)
            case .button: break
            default: states[device.id] = HomeKitDeviceState(on: false)
            }
        }
        state = Mutex(State(states: states))
        self.refused = refused
    }

    /// The writes carried out or refused, in order.
    public var writes: [HomeKitWrite] { state.withLock { $0.writes } }

    public func states() async -> [DeviceID: HomeKitDeviceState] {
        state.withLock { $0.states }
    }

    public func perform(_ write: HomeKitWrite) async -> HomeKitWriteResult {
        state.withLock { $0.writes.append(write) }
        if refused.contains(write.device) { return .refused("\(write.device.rawValue) needs a confirmation, which HomeKit cannot give") }
        var new = state.withLock { $0.states[write.device] } ?? HomeKitDeviceState()
        switch write {
        case .setOn(_, let on): new.on = on
        case .setPosition(_, let p):
            new.position = p
            new.targetPosition = p
            new.cover = p == 0 ? .closed : .open
        case .setDoor(_, let open): new.cover = open ? .open : .closed
        }
        set(write.device, new)
        return .done
    }

    /// A change made elsewhere: the state is set and told to the bridge.
    public func set(_ device: DeviceID, _ new: HomeKitDeviceState) {
        let listeners = state.withLock { s in
            s.states[device] = new
            return s.listeners
        }
        for listener in listeners { listener.yield((device, new)) }
    }

    public func changes() -> AsyncStream<(DeviceID, HomeKitDeviceState)> {
        let (stream, continuation) = AsyncStream<(DeviceID, HomeKitDeviceState)>.makeStream()
        state.withLock { $0.listeners.append(continuation) }
        return stream
    }
}
