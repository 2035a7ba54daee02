extension IntentReply {
    /// A reply's traces, made when read (for the JSON, mostly) from the outcomes they describe:
    /// most replies of the bus (a `set` without `reply_to`, a routine's run) are never read, and
    /// their traces cost more than the command itself. Coded and compared as the traces.
    @propertyWrapper
    public struct Traces: Sendable, Equatable, Codable {
        private enum Source: Sendable {
            case made([IntentTrace])
            case pending([IntentOutcome])
        }

        private var source: Source

        public init(wrappedValue: [IntentTrace]) { source = .made(wrappedValue) }

        init(outcomes: [IntentOutcome]) { source = .pending(outcomes) }

        public var wrappedValue: [IntentTrace] {
            get {
                switch source {
                case .made(let traces): traces
                case .pending(let outcomes): outcomes.map(IntentTrace.init)
                }
            }
            set { source = .made(newValue) }
        }

        public init(from decoder: any Decoder) throws { source = .made(try [IntentTrace](from: decoder)) }

        public func encode(to encoder: any Encoder) throws { try wrappedValue.encode(to: encoder) }

        public static func == (a: Traces, b: Traces) -> Bool { a.wrappedValue == b.wrappedValue }
    }
}
