import HouseCore

/// The bridge's one seam to the house. Writes from HomeKit go in as commands (the daemon's
/// implementation puts them on the command bus from source `homekit`, where permissions apply);
/// state comes out as the devices' states and their changes. The bridge calls nothing else of
/// the house and the house calls nothing of the bridge: changes come to it as values.
public protocol HomeKitHouse: Sendable {
    /// Every bridged device's state now (devices missing here read as unknown).
    func states() async -> [DeviceID: HomeKitDeviceState]
    /// Carries out what a controller wrote and says how it ended.
    func perform(_ write: HomeKitWrite) async -> HomeKitWriteResult
    /// The devices' states as they change, from now on; one stream for the bridge's one consumer.
    func changes() -> AsyncStream<(DeviceID, HomeKitDeviceState)>
}

/// A change a HomeKit controller asks for.
public enum HomeKitWrite: Sendable, Equatable {
    case setOn(DeviceID, Bool)
    /// A cover to a position, 0 closed to 100 open.
    case setPosition(DeviceID, Int)
    /// A garage door: open or close.
    case setDoor(DeviceID, open: Bool)

    public var device: DeviceID {
        switch self {
        case .setOn(let d, _), .setPosition(let d, _), .setDoor(let d, _): d
        }
    }

    /// The intent the write asks of `device`, as the topic API's `set` would ask it.
    public func intent(for device: Device) -> HouseIntent {
        let command: DeviceSetCommand
        switch self {
        case .setOn(_, let on): command = DeviceSetCommand(action: on ? .on : .off)
        case .setPosition(_, let p): command = DeviceSetCommand(action: .position, position: p)
        case .setDoor(_, let open): command = DeviceSetCommand(action: open ? .open : .close)
        }
        return command.intent(for: device)
    }
}

/// How a write ended, as HAP tells a controller (its status codes, table 6-11).
public enum HomeKitWriteResult: Sendable, Equatable {
    case done
    /// Refused by the house (permissions, a confirm device from HomeKit): -70401, with the reason
    /// the house gave, which the bridge logs (never a silent refusal).
    case refused(String)
    /// Tried and failed (a node offline, a relay's rule): -70402.
    case failed(String)
    /// The house was too busy to take it: -70403.
    case busy

    /// HAP's status code.
    public var status: Int {
        switch self {
        case .done: 0
        case .refused: HAPStatus.insufficientPrivileges
        case .failed: HAPStatus.unableToCommunicate
        case .busy: HAPStatus.busy
        }
    }

    /// How the house's answer to a write's intent ends for HomeKit.
    public init(_ reply: IntentReply) {
        switch reply.status {
        case .done, .inProgress: self = .done
        case .busy: self = .busy
        case .refused, .needsConfirmation, .unsupported: self = .refused(reply.dialog)
        case .needsValue, .needsChoice, .failed, .error, .expired: self = .failed(reply.dialog)
        }
    }
}

/// HAP's status codes of characteristic reads and writes.
public enum HAPStatus {
    public static let success = 0
    public static let insufficientPrivileges = -70401
    public static let unableToCommunicate = -70402
    public static let busy = -70403
    public static let readOnly = -70404
    public static let writeOnly = -70405
    public static let notificationNotSupported = -70406
    public static let outOfResources = -70407
    public static let timedOut = -70408
    public static let notFound = -70409
    public static let invalidValue = -70410
    public static let insufficientAuthorization = -70411
}
