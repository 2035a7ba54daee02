/// A cover's state as its state topic carries it (Home Assistant's cover states).
public enum CoverState: String, Sendable, Equatable, CaseIterable, Codable {
    case open, closed, opening, closing, stopped
}
