/// The outcome of resolving one intent parameter, in SiriKit's shape.
public enum ResolutionResult<Value: Sendable>: Sendable {
    /// The parameter resolved to this value.
    case success(Value)
    /// The parameter is required and missing; ask this question.
    case needsValue(question: String)
    /// Several values fit; ask which.
    case disambiguation(options: [Value], question: String)
    /// A value fits but must be confirmed by the user first.
    case confirmationRequired(Value, question: String)
    /// The value cannot be used, and why.
    case unsupported(reason: String)
    /// The parameter does not apply here.
    case notRequired
}

/// The outcome of confirming a resolved intent.
public enum ConfirmResult: Sendable, Equatable {
    case ready
    case inProgress
    case failure(reason: String)
    case failureRequiresPermission(prompt: String)
}
