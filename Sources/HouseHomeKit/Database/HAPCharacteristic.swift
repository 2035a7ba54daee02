/// One characteristic of a service: its instance id, HAP type, format, permissions and what it
/// stands for in the house (`role`), which gives its value and what a write of it means.
public struct HAPCharacteristic: Sendable, Equatable {
    public var iid: Int
    /// Apple's short type (`25` is On), as `/accessories` gives it.
    public var type: String
    public var format: Format
    public var permissions: [Permission]
    public var role: HAPRole
    public var unit: String?
    public var minValue: Double?
    public var maxValue: Double?
    public var minStep: Double?
    /// The values a `uint8` enumeration may take (`valid-values`).
    public var validValues: [Int]?

    public init(iid: Int, type: String, format: Format, permissions: [Permission], role: HAPRole, unit: String? = nil,
                minValue: Double? = nil, maxValue: Double? = nil, minStep: Double? = nil, validValues: [Int]? = nil) {
        self.iid = iid
        self.type = type
        self.format = format
        self.permissions = permissions
        self.role = role
        self.unit = unit
        self.minValue = minValue
        self.maxValue = maxValue
        self.minStep = minStep
        self.validValues = validValues
    }

    public enum Format: String, Sendable {
        case bool, uint8, int, float, string
    }

    /// HAP's permission words: paired read, paired write, events.
    public enum Permission: String, Sendable {
        case read = "pr", write = "pw", events = "ev"
    }

    public var readable: Bool { permissions.contains(.read) }
    public var writable: Bool { permissions.contains(.write) }
    public var notifies: Bool { permissions.contains(.events) }

    /// The value a controller wrote, checked against the format and range: nil when it is not one.
    func accepts(_ value: HAPJSON) -> HAPJSON? {
        switch format {
        case .bool:
            return value.boolValue.map(HAPJSON.bool)
        case .uint8, .int:
            guard let i = value.intValue else { return nil }
            if let minValue, Double(i) < minValue { return nil }
            if let maxValue, Double(i) > maxValue { return nil }
            if format == .uint8, !(0...255).contains(i) { return nil }
            if let validValues, !validValues.contains(i) { return nil }
            return .int(i)
        case .float:
            guard let d = value.doubleValue else { return nil }
            if let minValue, d < minValue { return nil }
            if let maxValue, d > maxValue { return nil }
            return .double(d)
        case .string:
            if case .string = value { return value }
            return nil
        }
    }

    /// The characteristic's entry in `/accessories` (with `value` when readable).
    func json(value: HAPJSON?) -> HAPJSON {
        var members: [(String, HAPJSON)] = [
            ("iid", .int(iid)), ("type", .string(type)),
            ("perms", .array(permissions.map { .string($0.rawValue) })), ("format", .string(format.rawValue)),
        ]
        if readable { members.append(("value", value ?? .null)) }
        members += metadata
        return .object(members)
    }

    /// `unit`, `minValue` and the rest, for `/accessories` and `meta=1`.
    var metadata: [(String, HAPJSON)] {
        var members: [(String, HAPJSON)] = []
        if let unit { members.append(("unit", .string(unit))) }
        if let minValue { members.append(("minValue", number(minValue))) }
        if let maxValue { members.append(("maxValue", number(maxValue))) }
        if let minStep { members.append(("minStep", number(minStep))) }
        if let validValues { members.append(("valid-values", .array(validValues.map(HAPJSON.int)))) }
        return members
    }

    private func number(_ d: Double) -> HAPJSON {
        format == .float ? .double(d) : .int(Int(d))
    }
}
