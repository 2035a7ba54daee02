/// What a person needs to add the bridge to the Home app, and whether anyone has: the setup code,
/// the setup ID, the setup URI a QR code carries, and how many controllers are paired. From the
/// running bridge (`HomeKitBridge.setup`, for the page) or from its files (`read`, for `housectl homekit`).
public struct HomeKitSetup: Sendable, Equatable {
    public var code: SetupCode
    public var setupID: String
    /// The name the bridge is announced and shown under.
    public var name: String
    public var pairedControllers: Int

    /// `X-HM://...`: what the QR code carries.
    public var setupURI: String { HAPAdvertisement.setupURI(code: code, setupID: setupID) }

    /// The setup of the bridge whose files are in `directory` (`<state>/homekit`), as it left
    /// them, with the setup code from `pinFile` when given; nothing is created: before the bridge
    /// first ran, an error says so.
    public static func read(pinFile: String?, directory: String, name: String) throws(HomeKitError) -> HomeKitSetup {
        guard let code = try SetupCode.read(pinFile: pinFile, keptIn: directory) else {
            throw .notStartedYet(path: SetupCode.path(in: directory))
        }
        guard let discovery = try HAPDiscoveryState.read(in: directory) else {
            throw .notStartedYet(path: directory + "/" + HAPDiscoveryState.fileName)
        }
        let paired = try PairingStore(directory: directory).pairings.count
        return HomeKitSetup(code: code, setupID: discovery.setupID, name: name, pairedControllers: paired)
    }
}
