/// What the bridge keeps of its DNS-SD announcement, in `discovery.json` under its state
/// directory: the setup ID (the last four characters of the setup URI, and part of the setup
/// hash `sh`), made once, and the configuration number `c#` with the fingerprint of the
/// accessories it stands for. A controller that sees a new `c#` reads the accessories again, so
/// `c#` goes up (1...65535, then 1 again, as HAP says) when they differ from the last start's: a
/// device added, removed or renamed in house.yaml, a new version of housectl.
public struct HAPDiscoveryState: Sendable, Equatable, Codable {
    public private(set) var setupID: String
    public private(set) var configurationNumber: Int
    /// `AccessoryDatabase.fingerprint` of the accessories `configurationNumber` stands for.
    public private(set) var accessories: String

    public init(setupID: String, configurationNumber: Int = 1, accessories: String) {
        self.setupID = setupID
        self.configurationNumber = configurationNumber
        self.accessories = accessories
    }

    static let fileName = "discovery.json"

    /// Moves to the accessories of `fingerprint`: `c#` goes up when they differ. Returns whether they did.
    public mutating func accessoriesChanged(to fingerprint: String) -> Bool {
        guard fingerprint != accessories else { return false }
        accessories = fingerprint
        configurationNumber = configurationNumber >= 65535 ? 1 : configurationNumber + 1
        return true
    }

    /// The state for accessories of `fingerprint`: the one kept in `directory`, its `c#` one
    /// higher when the accessories changed, or a new one (`c#` 1, a random setup ID) the first
    /// time; written back when it changed.
    public static func load(in directory: String, accessories fingerprint: String) throws(HomeKitError) -> HAPDiscoveryState {
        let path = directory + "/" + fileName
        if var state = try read(in: directory) {
            if state.accessoriesChanged(to: fingerprint) { try StateFile.write(state, to: path) }
            return state
        }
        let state = HAPDiscoveryState(setupID: HAPAdvertisement.randomSetupID(), accessories: fingerprint)
        try StateFile.write(state, to: path)
        return state
    }

    /// The state kept in `directory`, unchanged (nil before the bridge first ran); a file that
    /// does not hold a valid one is an error that names it.
    public static func read(in directory: String) throws(HomeKitError) -> HAPDiscoveryState? {
        let path = directory + "/" + fileName
        guard let state = try StateFile.read(HAPDiscoveryState.self, at: path) else { return nil }
        guard state.setupID.count == 4, state.setupID.allSatisfy({ $0.isASCII && ($0.isNumber || $0.isUppercase) }) else {
            throw .stateFile(path: path, reason: "the setup ID must be four characters of 0-9 and A-Z, not '\(state.setupID)'")
        }
        guard (1...65535).contains(state.configurationNumber) else {
            throw .stateFile(path: path, reason: "the configuration number must be 1...65535, not \(state.configurationNumber)")
        }
        return state
    }
}
