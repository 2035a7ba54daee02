/// One MQTT 5 user property (0x26): a name and a value, both UTF-8 text. A message may carry the
/// same name more than once; the order is kept end to end. One type for the broker and the client.
public struct MQTTUserProperty: Sendable, Hashable, CustomStringConvertible {
    /// The property's name.
    public var name: String
    /// The property's value.
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name)=\(value)" }
}
