import NIOCore

/// Whether a connection's decoder hands on its next packet now. The broker shuts it while the
/// intake valve holds the connection back (`BrokerCore.holdBackIfBehind`): the rest of what was
/// already read then waits as bytes in the decoder's buffer, not as messages queued for the
/// valve's client (a read of 64 kB is 1,400 commands of a flood). Opened again when the
/// connection is let go, and ignored once the connection has closed (what it sent before its
/// end is delivered). Used on the connection's event loop only.
final class PacketGate {
    /// While the connection is held back: the end of its longest pause (the timer that lets it go).
    var pause: Scheduled<Void>?
    /// Whether the decoder stops before its next packet.
    var isShut: Bool { pause != nil }
}
