import HouseCore

extension AccessoryDatabase {
    /// The version of HAP the bridge speaks (ProtocolInformation's Version).
    public static let protocolVersion = "1.1.0"

    /// The bridge and its bridged accessories for `configuration`: lights as Lightbulbs,
    /// switches, pumps, heaters, valves and doors as Switches, plugs and outlets as Outlets, fans
    /// as Fans, covers as WindowCoverings, a cover worked by an opener as a GarageDoorOpener,
    /// contacts, motion sensors, buttons and temperature sensors as their sensors. Other sensors
    /// are not shown (HomeKit has no service for most of them). Each name is the device's first
    /// name with its room's (`Kitchen Ceiling Light`), as HomeKit shows one list per home.
    ///
    /// Each mode is a Switch named after it (`Night Mode`): HomeKit has no choice of one among
    /// several, and a scene of Apple Home's own would set devices itself, around the house's
    /// modes (their rooms, timelines and confirmations). A switch is what Home Assistant's HomeKit
    /// bridge shows a select as, too: on while the mode is in force, on to set it.
    public static func bridge(for configuration: HouseConfiguration, numbers: AccessoryNumbers, firmware: String) -> AccessoryDatabase {
        var numbers = numbers
        var accessories = [HAPAccessory(aid: AccessoryNumbers.bridgeAID, item: nil, services: [
            information(name: bridgeName(of: configuration), model: "housectl bridge", serial: "housectl", firmware: firmware),
            HAPService(iid: 8, type: "A2", characteristics: [
                HAPCharacteristic(iid: 9, type: "37", format: .string, permissions: [.read], role: .constant(.string(protocolVersion))),
            ]),
        ])]
        let rooms = Dictionary(configuration.rooms.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        for device in configuration.devices {
            guard let service = primaryService(for: device) else { continue }
            let name = displayName(device, room: rooms[device.room])
            accessories.append(HAPAccessory(aid: numbers.aid(for: .device(device.id)), item: .device(device.id), services: [
                information(name: name, model: device.kind.rawValue, serial: device.id.rawValue, firmware: firmware),
                service(name),
            ]))
        }
        for mode in configuration.modes {
            let name = displayName(mode)
            accessories.append(HAPAccessory(aid: numbers.aid(for: .mode(mode.id)), item: .mode(mode.id), services: [
                information(name: name, model: "mode", serial: HomeKitItem.mode(mode.id).numberKey, firmware: firmware),
                modeService(name),
            ]))
        }
        return AccessoryDatabase(accessories: accessories)
    }

    /// The bridge's name: the house's and "Bridge", cut to the 63 bytes a DNS-SD instance name may have.
    public static func bridgeName(of configuration: HouseConfiguration) -> String {
        var house = configuration.house.name
        while house.utf8.count > 63 - " Bridge".utf8.count { house.removeLast() }
        return house + " Bridge"
    }

    /// What the bridge shows (the devices `bridge` gives an accessory, then the modes), for their numbers.
    public static func bridgedItems(of configuration: HouseConfiguration) -> [HomeKitItem] {
        configuration.devices.filter { primaryService(for: $0) != nil }.map { .device($0.id) } + configuration.modes.map { .mode($0.id) }
    }

    static func displayName(_ device: Device, room: String?) -> String {
        let name = titled(device.names.first ?? device.id.rawValue)
        guard let room, !name.lowercased().hasPrefix(room.lowercased()) else { return name }
        return room + " " + name
    }

    /// A mode's switch: its first name and "Mode" (`Night Mode`, what Siri is told: "turn on night mode").
    static func displayName(_ mode: Mode) -> String {
        let name = titled(mode.names.first ?? mode.id.rawValue)
        return name.lowercased().hasSuffix(" mode") ? name : name + " Mode"
    }

    /// Each word with a capital, as the Home app shows names.
    static func titled(_ text: String) -> String {
        text.split(separator: " ").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }

    /// iids 1-7: AccessoryInformation and its characteristics.
    static func information(name: String, model: String, serial: String, firmware: String) -> HAPService {
        HAPService(iid: 1, type: "3E", characteristics: [
            HAPCharacteristic(iid: 2, type: "14", format: .bool, permissions: [.write], role: .identify),
            HAPCharacteristic(iid: 3, type: "20", format: .string, permissions: [.read], role: .constant(.string("housectl"))),
            HAPCharacteristic(iid: 4, type: "21", format: .string, permissions: [.read], role: .constant(.string(model))),
            HAPCharacteristic(iid: 5, type: "23", format: .string, permissions: [.read], role: .constant(.string(name))),
            HAPCharacteristic(iid: 6, type: "30", format: .string, permissions: [.read], role: .constant(.string(serial))),
            HAPCharacteristic(iid: 7, type: "52", format: .string, permissions: [.read], role: .constant(.string(firmware))),
        ])
    }

    /// A mode's Switch (iid 8, its Name 9, its On 10).
    static func modeService(_ name: String) -> HAPService {
        service("49", [HAPCharacteristic(iid: 10, type: "25", format: .bool, permissions: [.read, .write, .events], role: .modeOn)])(name)
    }

    /// A primary service of `type` (iid 8) with its Name (9) and then `characteristics`.
    static func service(_ type: String, _ characteristics: [HAPCharacteristic]) -> (String) -> HAPService {
        { name in
            HAPService(iid: 8, type: type, primary: true, characteristics:
                [HAPCharacteristic(iid: 9, type: "23", format: .string, permissions: [.read], role: .constant(.string(name)))] + characteristics)
        }
    }

    /// The service of a device's kind (iid 8, its Name 9, its characteristics from 10), or nil
    /// for a device HomeKit cannot show.
    static func primaryService(for device: Device) -> ((String) -> HAPService)? {
        let readNotify: [HAPCharacteristic.Permission] = [.read, .events]
        let all: [HAPCharacteristic.Permission] = [.read, .write, .events]
        let on = HAPCharacteristic(iid: 10, type: "25", format: .bool, permissions: all, role: .on)
        switch device.kind {
        case .light: return service("43", [on])
        case .fan: return service("40", [on])
        case .plug, .outlet:
            return service("47", [on, HAPCharacteristic(iid: 11, type: "26", format: .bool, permissions: readNotify, role: .outletInUse)])
        case .switch, .pump, .heater, .valve, .door: return service("49", [on])
        case .cover where device.opener != nil:
            return service("41", [
                HAPCharacteristic(iid: 10, type: "0E", format: .uint8, permissions: readNotify, role: .currentDoorState, minValue: 0, maxValue: 4, minStep: 1),
                HAPCharacteristic(iid: 11, type: "32", format: .uint8, permissions: all, role: .targetDoorState, minValue: 0, maxValue: 1, minStep: 1),
                HAPCharacteristic(iid: 12, type: "24", format: .bool, permissions: readNotify, role: .obstructionDetected),
            ])
        case .cover:
            return service("8C", [
                HAPCharacteristic(iid: 10, type: "6D", format: .uint8, permissions: readNotify, role: .currentPosition, unit: "percentage", minValue: 0, maxValue: 100, minStep: 1),
                HAPCharacteristic(iid: 11, type: "7C", format: .uint8, permissions: all, role: .targetPosition, unit: "percentage", minValue: 0, maxValue: 100, minStep: 1),
                HAPCharacteristic(iid: 12, type: "72", format: .uint8, permissions: readNotify, role: .positionState, minValue: 0, maxValue: 2, minStep: 1),
            ])
        case .contact:
            return service("80", [HAPCharacteristic(iid: 10, type: "6A", format: .uint8, permissions: readNotify, role: .contactState, minValue: 0, maxValue: 1, minStep: 1)])
        case .motion:
            return service("85", [HAPCharacteristic(iid: 10, type: "22", format: .bool, permissions: readNotify, role: .motionDetected)])
        case .button:
            return service("89", [HAPCharacteristic(iid: 10, type: "73", format: .uint8, permissions: readNotify, role: .programmableSwitchEvent,
                                                    minValue: 0, maxValue: 2, minStep: 1, validValues: [0, 1, 2])])
        case .sensor:
            guard case .sensor(let source) = device.endpoint, source.deviceClass == .temperature else { return nil }
            return service("8A", [HAPCharacteristic(iid: 10, type: "11", format: .float, permissions: readNotify, role: .currentTemperature,
                                                    unit: "celsius", minValue: -270, maxValue: 100, minStep: 0.1)])
        }
    }
}
