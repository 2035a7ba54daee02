import MQTTTopics

/// The limits on what the controller takes from MQTT, in one place: every topic it parses
/// (device and mode commands, intent requests, relay commands between controllers, peer state,
/// node status, remote device state, Home Assistant status, the rules' topics) and every topic a
/// sender asks it to publish to. An input past a limit is refused with a `MalformedInput` that
/// names the limit: size and JSON nesting on the raw bytes, before any parser sees them; ids,
/// reply topics and texts as soon as they are read. The daemon logs the refusal (and answers a
/// command whose id and reply topic can still be read) and keeps serving. docs/MQTT.md lists the
/// limits under "Limits".
public enum InputLimits {
    /// The largest payload parsed on any topic, in bytes (64 KiB). A larger command is refused
    /// without a reply (its id is not read); a larger state, status or rule payload is ignored.
    public static let maximumPayloadSize = 64 * 1024

    /// How deep arrays and objects may nest in a JSON payload. Checked on the raw bytes before
    /// JSONSerialization or JSONDecoder see them, so that no parser recurses as deep as a sender
    /// likes (a 64 KiB payload of `[[[[...` nests 65,536 deep).
    public static let maximumJSONDepth = 32

    /// Levels (`/`-separated parts) of a topic the controller is asked to publish to (`reply_to`).
    /// mosquitto refuses deeper topics and the embedded broker drops them, so an answer sent
    /// there would be lost.
    public static let maximumTopicLevels = 200

    /// UTF-8 bytes of a topic the controller is asked to publish to (`reply_to`).
    public static let maximumTopicLength = 1024

    /// UTF-8 bytes of a command or request id (kept for de-duplication, used in the default
    /// reply topic `<base>/intent/response/<id>`) and of a device id in a relay command.
    public static let maximumIDLength = 128

    /// Characters (Unicode code points) of the `text` of an intent request: a phrase as a person
    /// would say it, several joined with "and", fits with room to spare.
    public static let maximumTextLength = 1000

    /// Characters of an input quoted in a log line or an error reply: never the whole payload.
    public static let excerptLength = 40

    /// Refuses a payload larger than `maximumPayloadSize`.
    public static func checkPayload(_ payload: [UInt8]) throws(MalformedInput) {
        guard payload.count <= maximumPayloadSize else {
            throw MalformedInput("payload of \(payload.count) bytes is larger than the limit of \(maximumPayloadSize) bytes")
        }
    }

    /// Refuses a topic the controller cannot publish to: empty, with a wildcard (`+`, `#`) or a
    /// NUL character, longer than `maximumTopicLength` bytes or deeper than `maximumTopicLevels`.
    /// `field` names it in the reason (`reply_to`).
    public static func checkTopic(_ topic: String, field: String = "reply_to") throws(MalformedInput) {
        switch MQTTTopic.topicNameProblem(topic) {
        case nil, .tooLong: break  // the tighter length limit below says how long
        case .some:
            throw MalformedInput("\"\(field)\" must be a non-empty topic without wildcards (+, #) or NUL characters")
        }
        let length = topic.utf8.count
        guard length <= maximumTopicLength else {
            throw MalformedInput("\"\(field)\" is \(length) bytes long, more than the limit of \(maximumTopicLength)")
        }
        let levels = MQTTTopic.levelCount(topic)
        guard levels <= maximumTopicLevels else {
            throw MalformedInput("\"\(field)\" has \(levels) levels, more than the limit of \(maximumTopicLevels)")
        }
    }

    /// Refuses an id longer than `maximumIDLength` bytes; `field` names it in the reason.
    public static func checkID(_ id: String, field: String = "id") throws(MalformedInput) {
        let length = id.utf8.count
        guard length <= maximumIDLength else {
            throw MalformedInput("\"\(field)\" is \(length) bytes long, more than the limit of \(maximumIDLength)")
        }
    }

    /// Refuses a text longer than `maximumTextLength` characters; `field` names it in the reason.
    public static func checkText(_ text: String, field: String = "text") throws(MalformedInput) {
        let length = text.unicodeScalars.count
        guard length <= maximumTextLength else {
            throw MalformedInput("\"\(field)\" is \(length) characters long, more than the limit of \(maximumTextLength)")
        }
    }

    /// The start of `text` for a log line or a reason: at most `excerptLength` characters, with
    /// "..." when cut.
    public static func excerpt(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let cut = scalars.index(scalars.startIndex, offsetBy: excerptLength, limitedBy: scalars.endIndex),
              cut != scalars.endIndex
        else { return text }
        return String(scalars[..<cut]) + "..."
    }

    /// The start of a payload for a log line: its first `excerptLength` characters (invalid UTF-8
    /// shown as U+FFFD), with "..." when cut.
    public static func excerpt(_ payload: [UInt8]) -> String {
        // 4 bytes per character at most: decode no more than the excerpt can show.
        let head = payload.prefix(4 * (excerptLength + 1))
        return excerpt(String(decoding: head, as: UTF8.self))
    }
}
