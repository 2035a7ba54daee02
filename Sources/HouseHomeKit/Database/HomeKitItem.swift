import HouseCore

/// What one bridged accessory shows: a device of the house, or one of its modes as a switch
/// (on while the mode is in force in its rooms; switching it on sets the mode).
public enum HomeKitItem: Hashable, Sendable, CustomStringConvertible {
    case device(DeviceID)
    case mode(ModeID)

    /// The key of its accessory number in `accessories.json`: a device's id, `mode:` and a mode's
    /// (a device and a mode of one name keep two numbers).
    var numberKey: String {
        switch self {
        case .device(let id): id.rawValue
        case .mode(let id): "mode:" + id.rawValue
        }
    }

    public var description: String { numberKey }
}
