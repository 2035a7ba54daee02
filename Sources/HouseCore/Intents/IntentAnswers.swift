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

    public init(choices: [String: String] = [:], confirmed: Bool = false) {
        self.choices = choices
        self.confirmed = confirmed
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
