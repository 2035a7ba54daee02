/// What a cover command comes to (`CoverPosition.plan`).
public enum CoverPlan: Sendable, Equatable {
    /// Run the winding toward `direction` for this long (then it goes off by itself).
    case run(CoverDirection, for: Duration, target: Int)
    /// Stop where it is (it is moving, and is at the target now).
    case stop
    /// Nothing to do: it is at `at` already and still.
    case stay(at: Int)
}
