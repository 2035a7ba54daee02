extension IntentSpec {
    /// A stable key for "the same intent" in usage history: `mode:night`,
    /// `control:bedroom/bedroom-light:on`, `routine:morning`.
    public var usageKey: String {
        switch self {
        case .control(let room, let device, let action):
            "control:\(room ?? "")/\(device ?? ""):\(action.rawValue)"
        case .mode(let mode, _, _):
            "mode:\(mode)"
        case .routine(let id):
            "routine:\(id)"
        }
    }
}
