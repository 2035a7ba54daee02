import HouseHomeKit

/// The HomeKit bridge as the page shows it: its name and how many controllers are paired, and,
/// while none is, the setup code and the setup URI its QR code carries (a paired bridge refuses
/// another pairing, so its code is of no use and is not shown).
struct HomeKitView: Sendable, Equatable, Codable {
    var name: String
    var paired: Int
    var setupCode: String?
    var setupURI: String?

    init(_ setup: HomeKitSetup) {
        name = setup.name
        paired = setup.pairedControllers
        if paired == 0 {
            setupCode = setup.code.text
            setupURI = setup.setupURI
        }
    }
}
