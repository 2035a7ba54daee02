import HouseCore

/// One accessory of the bridge: the bridge itself (aid 1) or a device of the house.
public struct HAPAccessory: Sendable, Equatable {
    public var aid: Int
    /// The device it shows; nil for the bridge.
    public var device: DeviceID?
    public var services: [HAPService]

    public init(aid: Int, device: DeviceID?, services: [HAPService]) {
        self.aid = aid
        self.device = device
        self.services = services
    }

    /// The characteristic with instance id `iid`.
    public func characteristic(_ iid: Int) -> HAPCharacteristic? {
        for service in services {
            if let c = service.characteristics.first(where: { $0.iid == iid }) { return c }
        }
        return nil
    }
}
