/// Why an input from MQTT (a command, a request, a relay command between controllers, a state
/// or status payload) was refused: what was expected and, when a limit was passed, the limit.
/// The daemon turns it into `DaemonError.malformedPayload` with the topic the input came on.
public struct MalformedInput: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was expected and what came instead ("JSON nested deeper than 32 levels, the limit").
    public var reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}
