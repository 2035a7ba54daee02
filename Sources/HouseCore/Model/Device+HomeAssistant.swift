extension Device {
    /// The Home Assistant domain this device is, as its entity and in the community grammar's
    /// `requires_context` ("light", "cover", "switch", "binary_sensor"...): a cover worked by an
    /// opener (a garage door) is a cover; heaters, plugs, pumps and doors are switches.
    public var homeAssistantDomain: String {
        if kind == .sensor { return "sensor" }
        if kind == .button { return "event" }
        if kind.isInput { return "binary_sensor" }
        if opener != nil { return "cover" }
        switch kind {
        case .light: return "light"
        case .fan: return "fan"
        case .cover: return "cover"
        case .valve: return "valve"
        case .heater, .plug, .outlet, .switch, .pump, .door, .sensor, .button, .contact, .motion: return "switch"
        }
    }
}
