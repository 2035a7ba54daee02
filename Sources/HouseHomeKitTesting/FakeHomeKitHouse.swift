import HouseCore
import HouseHomeKit
import Synchronization

/// A house for the bridge's tests: states in memory, a write sets the state at once (a cover is
/// where it was sent, a mode is the one in force), refused devices refuse, and `set` plays a
/// change made elsewhere (a switch from the CLI, a contact opening, a button's press).
public final class FakeHomeKitHouse: HomeKitHouse {
    private struct State {
        var states: [HomeKitItem: HomeKitDeviceState]
        var writes: [HomeKitWrite] = []
        var listeners: [AsyncStream<(HomeKitItem, HomeKitDeviceState)>.Continuation] = []
    }
    private let state: Mutex<State>
    /// Devices whose writes are refused (as a `confirm: true` device is from HomeKit).
    public let refused: Set<DeviceID>
    private let modes: [ModeID]

    public init(configuration: HouseConfiguration, refused: Set<DeviceID> = []) {
        var states: [HomeKitItem: HomeKitDeviceState] = [:]
        for device in configuration.devices {
            let item = HomeKitItem.device(device.id)
            switch device.kind {
            case .cover where device.opener != nil: states[item] = HomeKitDeviceState(cover: .closed)
            case .cover: states[item] = HomeKitDeviceState(position: 0, targetPosition: 0, cover: .closed)
            case .contact: states[item] = HomeKitDeviceState(contactOpen: false)
            case .motion: states[item] = HomeKitDeviceState(motionDetected: false)
            case .sensor: states[item] = HomeKitDeviceState(temperature: 20)
            case .button: states[item] = HomeKitDeviceState(presses: 0)
            default: states[item] = HomeKitDeviceState(on: false)
            }
        }
        for mode in configuration.modes { states[.mode(mode.id)] = HomeKitDeviceState(on: false) }
        modes = configuration.modes.map(\.id)
        state = Mutex(State(states: states))
        self.refused = refused
    }

    /// The writes carried out or refused, in order.
    public var writes: [HomeKitWrite] { state.withLock { $0.writes } }

    public func states() async -> [HomeKitItem: HomeKitDeviceState] {
        state.withLock { $0.states }
    }

    public func perform(_ write: HomeKitWrite) async -> HomeKitWriteResult {
        state.withLock { $0.writes.append(write) }
        if case .device(let id) = write.item, refused.contains(id) { return .refused("\(id.rawValue) needs a confirmation, which HomeKit cannot give") }
        var new = state.withLock { $0.states[write.item] } ?? HomeKitDeviceState()
        switch write {
        case .setOn(_, let on): new.on = on
        case .setPosition(_, let p):
            new.position = p
            new.targetPosition = p
            new.cover = p == 0 ? .closed : .open
        case .setDoor(_, let open): new.cover = open ? .open : .closed
        case .setMode(let mode):
            // One mode in force: the others' switches go off.
            for other in modes where other != mode { set(.mode(other), HomeKitDeviceState(on: false)) }
            new.on = true
        }
        set(write.item, new)
        return .done
    }

    /// A change made elsewhere: the state is set and told to the bridge.
    public func set(_ item: HomeKitItem, _ new: HomeKitDeviceState) {
        let listeners = state.withLock { s in
            s.states[item] = new
            return s.listeners
        }
        for listener in listeners { listener.yield((item, new)) }
    }

    /// A button pressed elsewhere (its next press, of `kind`).
    public func press(_ button: DeviceID, _ kind: ButtonPress) {
        let count = (state.withLock { $0.states[.device(button)]?.presses } ?? 0) + 1
        set(.device(button), HomeKitDeviceState(presses: count, lastPress: kind))
    }

    public func changes() -> AsyncStream<(HomeKitItem, HomeKitDeviceState)> {
        let (stream, continuation) = AsyncStream<(HomeKitItem, HomeKitDeviceState)>.makeStream()
        state.withLock { $0.listeners.append(continuation) }
        return stream
    }
}
