
/// What an input did, as the house hears it: debounced, classified, copied out of C.
public enum InputEvent: Sendable, Equatable, CustomStringConvertible {
    /// A contact or motion sensor settled at a new level (`active`: open, motion). `chatter`
    /// counts the edges beyond the one that mattered; `initial` marks the level read at start.
    case level(device: DeviceID, active: Bool, chatter: Int, initial: Bool)
    /// A button was pressed.
    case press(device: DeviceID, ButtonPress)
    /// Edges that settled back where they were (noise on the line): counted, never a change.
    case chatter(device: DeviceID, edges: Int)

    public var device: DeviceID {
        switch self {
        case .level(let d, _, _, _), .press(let d, _), .chatter(let d, _): d
        }
    }

    public var description: String {
        switch self {
        case .level(let d, let active, let chatter, let initial):
            "\(d): \(active ? "active" : "inactive")\(initial ? " (at start)" : "")\(chatter > 0 ? ", \(chatter) chattering edges ignored" : "")"
        case .press(let d, let press): "\(d): \(press.rawValue) press"
        case .chatter(let d, let edges): "\(d): \(edges) chattering edges, level unchanged"
        }
    }
}
