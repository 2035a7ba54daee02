/// An intent whose parameters all resolved against the house: what `HouseService` acts on.
public enum ResolvedIntent: Sendable, Equatable {
    /// Do `action` to each device; `position` is the target of action `position` (0-100).
    case control(devices: [Device], action: HouseAction, position: Int?)
    /// Apply a mode to rooms (empty: the mode's own rooms, or the whole house), for a while.
    case setMode(Mode, rooms: [Room], duration: Duration?)
    /// Answer a question about the house; `place` is how the asked place is said ("in the
    /// kitchen", "on the first floor"), nil for the house.
    case query(QueryType, range: TimeRange, room: Room?, devices: [Device]?, place: String?)
    /// Run a routine's intent.
    case runRoutine(Routine)
}
