/// Which way one winding of a cover motor drives it: a shutter, blind or curtain made of two
/// interlocked relays has an `up` member (opens, raises) and a `down` member (closes, lowers).
public enum CoverDirection: String, Sendable, Codable, CaseIterable, Hashable {
    case up, down

    /// The direction an action asks for: open raises, close lowers; nil for other actions.
    public init?(_ action: HouseAction) {
        switch action {
        case .open: self = .up
        case .close: self = .down
        default: return nil
        }
    }
}
