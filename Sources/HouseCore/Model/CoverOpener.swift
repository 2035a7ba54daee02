/// A cover worked by one push-button relay (a garage door or gate opener): each press starts,
/// stops or reverses it, the opener decides which. Optional contacts (inputs of the same node)
/// say where it is: closed, open, or neither (moving, stopped part way).
public struct CoverOpener: Sendable, Equatable {
    public var node: NodeID
    /// The board channel of the relay wired across the opener's push-button terminals.
    public var channel: Int
    /// How long a press lasts.
    public var pulse: Duration
    /// How long a full travel takes; not reaching an end within it and a margin is "obstructed".
    public var travelTime: Duration
    /// The contact (an input id) that is active while the cover is fully open.
    public var openContact: DeviceID?
    /// The contact that is active while it is fully closed.
    public var closedContact: DeviceID?
    public var deviceClass: CoverClass

    public init(node: NodeID, channel: Int, pulse: Duration = .seconds(1), travelTime: Duration, openContact: DeviceID? = nil,
                closedContact: DeviceID? = nil, deviceClass: CoverClass = .garage) {
        self.node = node
        self.channel = channel
        self.pulse = pulse
        self.travelTime = travelTime
        self.openContact = openContact
        self.closedContact = closedContact
        self.deviceClass = deviceClass
    }

    /// The time after a press within which the cover must reach an end (travel and a margin of
    /// a quarter of it, at least 5 s).
    public var deadline: Duration { travelTime + max(.seconds(5), travelTime / 4) }

    public var relay: RelayRef { RelayRef(node: node, channel: channel) }

    /// Whether a contact says anything about where it is.
    public var hasContacts: Bool { openContact != nil || closedContact != nil }
}
