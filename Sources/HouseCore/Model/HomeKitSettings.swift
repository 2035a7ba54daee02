/// The HomeKit bridge `housectl serve` runs for Apple Home and Siri (`homekit:` in house.yaml);
/// off unless `enabled: true`, and served by the primary node only.
public struct HomeKitSettings: Sendable, Equatable {
    public var enabled: Bool
    /// The address to listen on (every interface by default: an iPhone is on the LAN).
    public var bind: String
    /// The TCP port (HAP's customary 51826; 0: any free port, for tests).
    public var port: Int
    /// A file holding the setup code (`XXX-XX-XXX`); without it the bridge makes one and keeps it
    /// in its state directory (`<state>/homekit/setup.json`; the log says where).
    public var pinFile: String?

    public init(enabled: Bool = false, bind: String = "0.0.0.0", port: Int = 51826, pinFile: String? = nil) {
        self.enabled = enabled
        self.bind = bind
        self.port = port
        self.pinFile = pinFile
    }
}
