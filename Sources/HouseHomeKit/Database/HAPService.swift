/// A service of an accessory (a Lightbulb, the AccessoryInformation) with its characteristics.
public struct HAPService: Sendable, Equatable {
    public var iid: Int
    /// Apple's short type (`43` is Lightbulb).
    public var type: String
    public var primary: Bool
    public var characteristics: [HAPCharacteristic]

    public init(iid: Int, type: String, primary: Bool = false, characteristics: [HAPCharacteristic]) {
        self.iid = iid
        self.type = type
        self.primary = primary
        self.characteristics = characteristics
    }
}
