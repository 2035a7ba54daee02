import HouseCore

/// What HomeKit shows of one device (or a mode's switch), in the house's own terms: the seam's
/// state (`HomeKitHouse`).
public struct HomeKitDeviceState: Sendable, Equatable {
    /// A switchable device's state (nil: it has not reported one); a mode: in force.
    public var on: Bool?
    /// A cover's position, 0 closed to 100 open, and where it was sent.
    public var position: Int?
    public var targetPosition: Int?
    /// A cover's or a garage door's movement or end state.
    public var cover: CoverState?
    /// A contact: open (no contact) or closed.
    public var contactOpen: Bool?
    public var motionDetected: Bool?
    /// A temperature sensor's reading in °C.
    public var temperature: Double?
    /// A button's presses so far and the last one's kind: each new count is an event.
    public var presses: Int?
    public var lastPress: ButtonPress?

    public init(on: Bool? = nil, position: Int? = nil, targetPosition: Int? = nil, cover: CoverState? = nil,
                contactOpen: Bool? = nil, motionDetected: Bool? = nil, temperature: Double? = nil,
                presses: Int? = nil, lastPress: ButtonPress? = nil) {
        self.on = on
        self.position = position
        self.targetPosition = targetPosition
        self.cover = cover
        self.contactOpen = contactOpen
        self.motionDetected = motionDetected
        self.temperature = temperature
        self.presses = presses
        self.lastPress = lastPress
    }
}
