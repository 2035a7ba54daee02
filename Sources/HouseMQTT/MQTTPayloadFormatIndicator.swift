/// What an MQTT 5 message says its payload is (the Payload Format Indicator property).
public enum MQTTPayloadFormatIndicator: UInt8, Sendable, Hashable, CaseIterable {
    /// Unspecified bytes (0).
    case bytes = 0
    /// UTF-8 text (1): a publish with this indicator and a payload that is not valid UTF-8 is
    /// refused before it is sent.
    case utf8 = 1
}
