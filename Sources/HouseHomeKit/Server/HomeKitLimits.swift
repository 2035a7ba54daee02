/// What one controller, or anybody on the network, can make the bridge hold: connections, time
/// before pair-verify, request sizes. Past a limit the connection is closed (and the log says
/// why); a controller that plays by HAP's rules never meets one.
public struct HomeKitLimits: Sendable, Equatable {
    /// Connections open at once. HAP asks an accessory for at least 8; HomeKit's own accessory
    /// kit keeps 17 sessions, HAP-python and HAP-NodeJS set no bound. 16 is one for each pairing
    /// the bridge keeps (`PairingStore.maxPairings`: the iPhones, iPads and home hubs of a
    /// household each hold one) and room to spare, while a flood of idle sockets from the network
    /// stays a handful of kilobytes. A connection beyond it is closed at once.
    public var maxConnections = 16
    /// How long a connection that has not finished pair-verify may stay silent before it is
    /// closed (HAP-python waits 90 hours for any connection; a verified one is never closed for
    /// being idle here, as Apple's controllers hold theirs for days). Five minutes is longer
    /// than a person takes to type the setup code between pair-setup's first step and its proof
    /// (Home Assistant asks for it then), and frees a pair-setup left under way, which holds
    /// every other pair-setup off (Busy), within that time.
    public var unverifiedIdle: Duration = .seconds(300)
    /// The longest body before pair-verify: pair-setup's largest message (M3: a 384-byte key and
    /// a 64-byte proof in TLV8) is under 500 bytes. After pair-verify a body may be as long as
    /// `HAPRequestParser.maxBodyBytes` (a write of every characteristic of a large house).
    public var maxUnverifiedBody = 4096

    public init(maxConnections: Int = 16, unverifiedIdle: Duration = .seconds(300), maxUnverifiedBody: Int = 4096) {
        self.maxConnections = maxConnections
        self.unverifiedIdle = unverifiedIdle
        self.maxUnverifiedBody = maxUnverifiedBody
    }
}
