import HouseCore
import HouseDaemon
import Synchronization

/// The daemon's house for the bridge: a write is a command on the command bus from source
/// `homekit` (`HouseController.submit`, where permissions and confirmations apply, as for the
/// page); states are the engine's overview, and changes follow the controller's change feed
/// (woken after every command the bus carried out).
public struct ControllerHouse<C: WallClock>: HomeKitHouse {
    let controller: HouseController<C>
    /// Where HomeKit last sent each cover (HomeKit shows a cover moving towards its target).
    private let targets = Targets()

    public init(controller: HouseController<C>) {
        self.controller = controller
    }

    public func states() async -> [HomeKitItem: HomeKitDeviceState] {
        Self.states(of: await controller.overview(), in: controller.configuration, targets: targets.value)
    }

    public func perform(_ write: HomeKitWrite) async -> HomeKitWriteResult {
        guard let intent = write.intent(in: controller.configuration) else { return .failed("unknown \(write.item)") }
        // The target is known before the cover starts: its first change already shows it.
        if case .setPosition(let id, let position) = write { targets.set(id, position) }
        let result = HomeKitWriteResult(await controller.submit(intent, source: .homekit))
        if case .setPosition(let id, _) = write, result != .done { targets.set(id, nil) }
        return result
    }

    public func changes() -> AsyncStream<(HomeKitItem, HomeKitDeviceState)> {
        let controller = self.controller, targets = self.targets
        return AsyncStream { continuation in
            let task = Task {
                await controller.changes.watch { signal in
                    let configuration = controller.configuration
                    var last = Self.states(of: await controller.overview(), in: configuration, targets: targets.value)
                    while !Task.isCancelled {
                        await signal.wait()
                        let now = Self.states(of: await controller.overview(), in: configuration, targets: targets.value)
                        for (item, state) in now where last[item] != state { continuation.yield((item, state)) }
                        last = now
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Each device's and mode's state as HomeKit shows it, from the page's view of the house: a
    /// mode is on while every room it applies to (its own, or all) is in it.
    static func states(of overview: HouseOverview, in configuration: HouseConfiguration,
                       targets: [DeviceID: Int]) -> [HomeKitItem: HomeKitDeviceState] {
        var states: [HomeKitItem: HomeKitDeviceState] = [:]
        let roomModes = Dictionary(overview.rooms.map { ($0.id, $0.mode) }, uniquingKeysWith: { a, _ in a })
        for mode in configuration.modes {
            let rooms = mode.rooms.isEmpty ? overview.rooms.map(\.id) : mode.rooms
            states[.mode(mode.id)] = HomeKitDeviceState(on: !rooms.isEmpty && rooms.allSatisfy { roomModes[$0] == mode.id })
        }
        for button in overview.buttons {
            states[.device(button.id)] = HomeKitDeviceState(presses: button.presses, lastPress: button.last)
        }
        for room in overview.rooms {
            for device in room.devices {
                var s = HomeKitDeviceState()
                switch device.kind {
                case .contact: s.contactOpen = device.state == .on
                case .motion: s.motionDetected = device.state == .on
                case .sensor:
                    // The reading in words ("21.5 °C"); its number, when it has one.
                    s.temperature = device.value.flatMap { Double($0.prefix { $0.isNumber || $0 == "." || $0 == "-" }) }
                case .cover:
                    if let report = device.cover {
                        s.position = report.position
                        let moving = report.state == .opening || report.state == .closing
                        s.targetPosition = moving ? targets[device.id] ?? (report.state == .opening ? 100 : 0) : report.position
                        s.cover = report.state
                    } else {
                        s.cover = device.value.flatMap(CoverState.init(rawValue:)) ?? (device.value == "unknown" ? .unknown : nil)
                    }
                default: s.on = device.state.map { $0 == .on }
                }
                states[.device(device.id)] = s
            }
        }
        return states
    }
}

/// The covers' targets HomeKit sent, shared by the house's copies.
private final class Targets: Sendable {
    private let targets = Mutex<[DeviceID: Int]>([:])
    var value: [DeviceID: Int] { targets.withLock { $0 } }
    func set(_ device: DeviceID, _ position: Int?) { targets.withLock { $0[device] = position } }
}
