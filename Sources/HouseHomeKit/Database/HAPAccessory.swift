import HouseCore

/// One accessory of the bridge: the bridge itself (aid 1), a device of the house or a mode.
public struct HAPAccessory: Sendable, Equatable {
    public var aid: Int
    /// What it shows; nil for the bridge.
    public var item: HomeKitItem?
    public var services: [HAPService]

    public init(aid: Int, item: HomeKitItem?, services: [HAPService]) {
        self.aid = aid
        self.item = item
        self.services = services
    }

    /// The device it shows, when it shows one.
    public var device: DeviceID? {
        if case .device(let id)? = item { return id }
        return nil
    }

    /// The characteristic with instance id `iid`.
    public func characteristic(_ iid: Int) -> HAPCharacteristic? {
        for service in services {
            if let c = service.characteristics.first(where: { $0.iid == iid }) { return c }
        }
        return nil
    }
}
