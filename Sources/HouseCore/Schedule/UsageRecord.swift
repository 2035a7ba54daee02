import Foundation

/// One past use of a shortcut, routine or intent (a donation, reduced to what relevance needs).
///
/// `subject` is a routine id, a shortcut phrase (matched without regard to case), or an intent's
/// `usageKey` (`mode:night`), so a use of the same intent through another path also counts.
public struct UsageRecord: Sendable, Hashable {
    public var subject: String
    public var at: Date

    public init(subject: String, at: Date) {
        self.subject = subject
        self.at = at
    }

    /// A use of a routine or shortcut by id or phrase.
    public init(routineID: RoutineID, at: Date) { self.init(subject: routineID.rawValue, at: at) }

    /// A use of an intent, whichever path it came through.
    public init(intent: IntentSpec, at: Date) { self.init(subject: intent.usageKey, at: at) }
}
