/// The result of resolving every parameter of an intent.
public struct IntentResolution: Sendable, Equatable {
    /// Each parameter's result, in the order they were resolved.
    public var parameters: [ParameterResolution]
    /// The resolved intent, when no parameter blocks (it may still need confirmation).
    public var resolved: ResolvedIntent?

    public init(parameters: [ParameterResolution], resolved: ResolvedIntent?) {
        self.parameters = parameters
        self.resolved = resolved
    }

    /// The first parameter that needs a value, a choice, or cannot be used.
    public var blocking: ParameterResolution? { parameters.first { $0.isBlocking } }

    /// The parameter waiting for a yes, if any.
    public var pendingConfirmation: ParameterResolution? { parameters.first { $0.kind == .confirmationRequired } }

    public func parameter(_ name: String) -> ParameterResolution? { parameters.first { $0.parameter == name } }
}
