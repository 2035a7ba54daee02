/// The id of one kind of thing in the house: a string as written in `house.yaml`, typed by what it
/// names, so that a device id cannot be passed where a room id is expected.
///
/// One generic type for every kind (`RoomID`, `DeviceID`, ...), told apart by a phantom `Tag`:
/// the conformances are written once. It is encoded as its bare string (JSON, MQTT payloads, the
/// state store), and as a dictionary key it encodes as the string key, so formats are unchanged.
/// Wrapping a `String` adds no storage and no allocation.
///
/// Strings become ids where they enter (the configuration parser, topic paths, payloads, store
/// rows): `DeviceID("bedroom-lamp")`, or a literal. `rawValue` gives the string back at the edges
/// (topics, SQL, dialog).
public struct Identifier<Tag>: RawRepresentable, Hashable, Comparable, Sendable, Codable, CodingKeyRepresentable,
    ExpressibleByStringLiteral, CustomStringConvertible, LosslessStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    /// The id written `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }
    public var isEmpty: Bool { rawValue.isEmpty }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    public var codingKey: any CodingKey { IdentifierCodingKey(stringValue: rawValue) }
    public init?<K: CodingKey>(codingKey: K) { self.rawValue = codingKey.stringValue }
}

/// The key of a dictionary keyed by ids, in an encoded form: the id's string.
struct IdentifierCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

/// The tags of the house's ids: caseless enums, never instantiated.
public enum RoomTag {}
public enum DeviceTag {}
public enum ModeTag {}
public enum NodeTag {}
public enum RoutineTag {}
public enum FloorTag {}

/// A room's id (`living-room`).
public typealias RoomID = Identifier<RoomTag>
/// A device's id (`bedroom-lamp`).
public typealias DeviceID = Identifier<DeviceTag>
/// A mode's id (`night`).
public typealias ModeID = Identifier<ModeTag>
/// A node's id, its hostname (`pi-main`).
public typealias NodeID = Identifier<NodeTag>
/// A routine's id (`morning`).
public typealias RoutineID = Identifier<RoutineTag>
/// A floor's id (`ground`).
public typealias FloorID = Identifier<FloorTag>

extension Sequence {
    /// The ids' strings joined, for messages and listings (`kitchen, hall`).
    public func joined<Tag>(separator: String = "") -> String where Element == Identifier<Tag> {
        map(\.rawValue).joined(separator: separator)
    }
}
