import Crypto
import HouseCore

/// The bridge's accessories as `GET /accessories` lists them: the bridge (aid 1:
/// AccessoryInformation and ProtocolInformation), one accessory per device HomeKit can show,
/// each with the service of its kind, and one switch per mode. Built once from the house's configuration; values come
/// from the devices' states when read.
public struct AccessoryDatabase: Sendable {
    public let accessories: [HAPAccessory]
    private let index: [Int: Int]

    public init(accessories: [HAPAccessory]) {
        self.accessories = accessories
        index = Dictionary(uniqueKeysWithValues: accessories.enumerated().map { ($1.aid, $0) })
    }

    public func accessory(_ aid: Int) -> HAPAccessory? {
        index[aid].map { accessories[$0] }
    }

    /// The accessory of `item`.
    public func accessory(of item: HomeKitItem) -> HAPAccessory? {
        accessories.first { $0.item == item }
    }

    /// The accessory of `device`.
    public func accessory(of device: DeviceID) -> HAPAccessory? {
        accessory(of: .device(device))
    }

    /// The whole database as JSON, with the values of `states`.
    public func json(states: [HomeKitItem: HomeKitDeviceState]) -> HAPJSON {
        .object([("accessories", .array(accessories.map { accessory in
            let state = accessory.item.flatMap { states[$0] }
            return .object([
                ("aid", .int(accessory.aid)),
                ("services", .array(accessory.services.map { service in
                    var members: [(String, HAPJSON)] = [("iid", .int(service.iid)), ("type", .string(service.type))]
                    if service.primary { members.append(("primary", .bool(true))) }
                    members.append(("characteristics", .array(service.characteristics.map { $0.json(value: $0.role.value(state)) })))
                    return .object(members)
                })),
            ])
        }))])
    }

    /// A digest of the accessories, their services and characteristics with their fixed values
    /// (names, models, firmware), not their states: what `c#` stands for.
    public var fingerprint: String {
        SHA256.hash(data: json(states: [:]).encoded).map { String(format: "%02x", $0) }.joined()
    }
}
