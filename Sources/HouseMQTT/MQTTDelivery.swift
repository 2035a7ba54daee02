/// What `MQTTClient.publish` or `MQTTClient.send` did with a message.
public enum MQTTDelivery: Sendable, Hashable {
    /// QoS 0: written to the socket. QoS 1/2: acknowledged by the broker (PUBACK / PUBCOMP).
    case delivered
    /// Sent without waiting (`send`): handed to libmosquitto, or held in the client behind the
    /// in-flight window; a QoS 1/2 message is sent again until the broker acknowledges it, across
    /// reconnects.
    case sent
    /// The client was not connected: the message waits in the offline queue and is sent, in order,
    /// after the next CONNACK unless its time to live runs out first.
    case queued
}
