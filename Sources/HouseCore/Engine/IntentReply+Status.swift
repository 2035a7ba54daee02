extension IntentReply {
    /// How a request ended: an `IntentOutcome.Status`, or `error` for a request that could not be
    /// read. The JSON carries the raw value (`"done"`, `"needsChoice"`, ...).
    public enum Status: String, Sendable, Codable, CaseIterable {
        case done, needsValue, needsChoice, needsConfirmation, unsupported, refused, failed, inProgress
        /// The request could not be read (malformed, too large, a repeated id from before a restart).
        case error
        /// Not done: too many commands were waiting. Send it again later.
        case busy
        /// Not done: its MQTT 5 message expiry ran out before its turn came.
        case expired

        /// The reply status of an intent's outcome.
        public init(_ status: IntentOutcome.Status) {
            switch status {
            case .done: self = .done
            case .needsValue: self = .needsValue
            case .needsChoice: self = .needsChoice
            case .needsConfirmation: self = .needsConfirmation
            case .unsupported: self = .unsupported
            case .refused: self = .refused
            case .failed: self = .failed
            case .inProgress: self = .inProgress
            }
        }
    }

    /// How far a request got on the one path.
    public enum Phase: String, Sendable, Codable, CaseIterable {
        case resolve, confirm, handle
    }
}
