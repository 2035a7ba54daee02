import HouseCore

/// What HomeKit shows of one device, in the house's own terms: the seam's state (`HomeKitHouse`).
public struct HomeKitDeviceState: Sendable, Equatable {
    /// A switchable device's state.
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

    public init(on: Bool? = nil, position: Int? = nil, targetPosition: Int? = nil, cover: CoverState? = nil,
                contactOpen: Bool? = nil, motionDetected: Bool? = nil, temperature: Double? = nil) {
        self.on = on
        self.position = position
        self.targetPosition = targetPosition
        self.cover = cover
        self.contactOpen = contactOpen
        self.motionDetected = motionDetected
        self.temperature = temperature
    }
}
