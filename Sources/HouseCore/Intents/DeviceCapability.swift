/// Something people ask of a device that a relay cannot do: "dim the lights", "make the lamp
/// blue", "set the heater to 21 degrees", "open the blinds halfway", "set the fan to high",
/// "set the shutters to 40 percent", "lock the back door".
/// A control intent that asks for one is understood, resolved to its devices and answered with
/// what those devices can do; nothing is switched.
public enum DeviceCapability: String, Sendable, CaseIterable, Codable {
    case brightness
    case colour
    case colourTemperature = "colour-temperature"
    case temperature
    case position
    case speed
    /// Locking or unlocking ("lock the back door"): no relay here is a lock.
    case lock
    /// A level without saying of what ("set X to 40 percent"): brightness for a light, position
    /// for a cover, speed for a fan or pump.
    case level

    /// What the capability would do, for "... not dimmed or brightened."
    func refusal(for kinds: Set<DeviceKind>) -> String {
        switch self {
        case .brightness: return "dimmed or brightened"
        case .colour: return "given a colour"
        case .colourTemperature: return "made warmer or cooler"
        case .temperature: return "set to a temperature"
        case .position: return "set to a position"
        case .speed: return "set to a speed"
        case .lock: return "locked or unlocked"
        case .level:
            if kinds == [.light] { return DeviceCapability.brightness.refusal(for: kinds) }
            if kinds.isSubset(of: [.cover, .door, .valve]) { return DeviceCapability.position.refusal(for: kinds) }
            if kinds.isSubset(of: [.fan, .pump]) { return DeviceCapability.speed.refusal(for: kinds) }
            return "set to a level"
        }
    }
}
