/// Answers to the pipeline's questions, fed back with the same intent on the next call.
///
/// A front end shows `IntentOutcome.question` and `options`; when the user picks one, it calls
/// the pipeline again with `answers.choices[outcome.pendingParameter] = option.id`; when the user
/// says yes to a confirmation, with `answers.confirmed = true`.
public struct IntentAnswers: Sendable, Equatable, Codable {
    /// Chosen option id per parameter name (`"room": "bedroom"`, `"device": "bedroom-bedside-lamp"`).
    public var choices: [String: String]
    /// The user said yes to the confirmation question.
    public var confirmed: Bool
    /// The room the speaker is in (`housectl say --room`, `context_room` of a request from a voice
    /// satellite), as an id, name or alias: it answers "which room?" before it is asked, so "turn
    /// off the lights" and "turn on the light in here" mean that room's. A device or plural that
    /// is not in that room is resolved as without it.
    public var contextRoom: String?

    public init(choices: [String: String] = [:], confirmed: Bool = false, contextRoom: String? = nil) {
        self.choices = choices
        self.confirmed = confirmed
        self.contextRoom = contextRoom
    }

    /// No answers yet.
    public static let none = IntentAnswers()

    /// These answers plus a choice.
    public func choosing(_ optionID: String, for parameter: String) -> IntentAnswers {
        var a = self
        a.choices[parameter] = optionID
        return a
    }

    /// These answers plus a yes.
    public var confirming: IntentAnswers {
        var a = self
        a.confirmed = true
        return a
    }
}
