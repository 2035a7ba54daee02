/// What people answered to suggestions, by suggestion id (`HabitSuggestion.id`): kept in
/// housectl's file next to house.yaml (`AcceptedFile`), so an answered suggestion is not offered
/// again while its habit holds.
public struct SuggestionAnswers: Sendable, Equatable {
    /// Accepted, in the order they were: what they suggested is in the file.
    public var accepted: [String]
    /// Dismissed, in the order they were.
    public var dismissed: [String]

    public init(accepted: [String] = [], dismissed: [String] = []) {
        self.accepted = accepted
        self.dismissed = dismissed
    }

    /// Whether `id` was accepted or dismissed.
    public func answered(_ id: String) -> Bool { accepted.contains(id) || dismissed.contains(id) }
}
