/// A cover's state as its state topic carries it (Home Assistant's cover states).
public enum CoverState: String, Sendable, Equatable, CaseIterable, Codable {
    case open, closed, opening, closing, stopped
    /// An opener with no contact to tell (Home Assistant's unknown state is the payload `None`).
    case unknown = "None"
    /// An opener that did not reach an end within its travel time and margin after a press.
    case obstructed

    /// The payload of the state topic, in the states Home Assistant's cover knows: a cover
    /// stopped part way, or an opener that may be obstructed, is `open` (neither is closed).
    public var payload: String {
        switch self {
        case .stopped, .obstructed: CoverState.open.rawValue
        default: rawValue
        }
    }
}
