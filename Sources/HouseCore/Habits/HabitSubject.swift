/// What a person did, as habits are learnt from it: a device switched, a mode set, a routine run.
public enum HabitSubject: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// A device switched on or off, opened or closed.
    case device(DeviceID, HouseAction)
    case mode(ModeID)
    case routine(RoutineID)

    /// The device, when it is one.
    public var device: DeviceID? {
        if case .device(let id, _) = self { return id }
        return nil
    }

    /// Whether it switches a device on or opens it.
    public var switchesOn: Bool {
        if case .device(_, let action) = self { return action == .on || action == .open }
        return false
    }

    /// A stable text key: `device:kitchen-light:on`, `mode:night`, `routine:good-night`; it
    /// orders subjects and makes suggestion ids.
    public var key: String {
        switch self {
        case .device(let id, let action): "device:\(id):\(action.rawValue)"
        case .mode(let id): "mode:\(id)"
        case .routine(let id): "routine:\(id)"
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.key < b.key }

    public var description: String { key }
}
