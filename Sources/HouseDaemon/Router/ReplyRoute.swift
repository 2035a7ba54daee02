import HouseCore
import HouseMQTT
import Logging

/// Where the answer to a command goes: the topic the request named, in its JSON `reply_to`
/// (MQTT 3.1.1 and 5) or as its MQTT 5 response topic, with the request's correlation data (the
/// MQTT 5 way Node-RED, Home Assistant and zigbee2mqtt users know). The JSON field wins when both
/// are given.
struct ReplyRoute: Sendable {
    var topic: String
    /// The request's MQTT 5 correlation data, sent back with the answer.
    var correlation: [UInt8]?

    init(topic: String, correlation: [UInt8]? = nil) {
        self.topic = topic
        self.correlation = correlation
    }

    /// The route a request asked for, nil when it asked for none. A response topic that is no
    /// valid topic name is ignored with a logged reason (no answer can go there).
    init?(jsonReplyTo: String?, message: MQTTMessage, logger: Logger) {
        if let jsonReplyTo {
            self.init(topic: jsonReplyTo, correlation: message.properties.correlationData)
            return
        }
        guard let response = message.properties.responseTopic else { return nil }
        do throws(MalformedInput) {
            try InputLimits.checkTopic(response, field: "response topic")
        } catch {
            logger.warning("ignored the response topic of a command on \(message.topic): \(error.reason)")
            return nil
        }
        self.init(topic: response, correlation: message.properties.correlationData)
    }
}
