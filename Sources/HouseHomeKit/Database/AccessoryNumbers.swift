import HouseCore

/// The accessory id (aid) of each bridged device and mode, kept in `accessories.json` under the state
/// directory: HomeKit remembers rooms, names and automations by aid, so a device keeps its aid
/// across restarts and configuration changes, a new device takes the next never-used one, and the
/// aid of a removed device is never given to another. Instance ids (iid) follow from the service
/// layout of the device's kind, so they are stable with the aid.
public struct AccessoryNumbers: Sendable, Equatable, Codable {
    /// The bridge itself is aid 1.
    public static let bridgeAID = 1
    public private(set) var aids: [String: Int]
    public private(set) var next: Int

    public init(aids: [String: Int] = [:], next: Int = 2) {
        self.aids = aids
        self.next = next
    }

    /// The aid of `item`, given a new one when it has none.
    public mutating func aid(for item: HomeKitItem) -> Int {
        if let aid = aids[item.numberKey] { return aid }
        let aid = next
        aids[item.numberKey] = aid
        next += 1
        return aid
    }

    static let fileName = "accessories.json"

    /// The numbers kept in `directory` (none yet: an empty set), given to `items` (new ones
    /// numbered in order) and written back when that added any.
    public static func load(in directory: String, for items: [HomeKitItem]) throws(HomeKitError) -> AccessoryNumbers {
        let path = directory + "/" + fileName
        var numbers = try StateFile.read(AccessoryNumbers.self, at: path) ?? AccessoryNumbers()
        let before = numbers
        for item in items { _ = numbers.aid(for: item) }
        if numbers != before { try StateFile.write(numbers, to: path) }
        return numbers
    }
}
