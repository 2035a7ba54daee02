/// A cover's place as its topics carry it and people hear it.
public struct CoverReport: Sendable, Equatable, Codable {
    public var state: CoverState
    /// 0 (closed) to 100 (open).
    public var position: Int
    /// True while the position is only worked out, not confirmed by a full travel.
    public var assumed: Bool

    public init(state: CoverState, position: Int, assumed: Bool) {
        self.state = state
        self.position = position
        self.assumed = assumed
    }

    /// The payload of the cover's `report` topic: state (as the state topic says it) and
    /// position in one message, so that Home Assistant changes both at once.
    public var json: String {
        "{\"assumed\":\(assumed),\"position\":\(position),\"state\":\"\(state.payload)\"}"
    }
}
