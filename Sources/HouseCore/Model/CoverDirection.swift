/// Which way a cover's motor drives it: `up` opens (raises), `down` closes (lowers).
public enum CoverDirection: String, Sendable, Codable, CaseIterable, Hashable {
    case up, down

    /// The other way.
    public var reversed: CoverDirection { self == .up ? .down : .up }
}
