/// Where a request came from. Every path into the house names its source.
public enum IntentSource: String, Sendable, Codable, CaseIterable, Hashable {
    case cli, mqtt, routine, rule
    /// The page served by `housectl serve` (`web:` in house.yaml).
    case web
    /// Apple Home and Siri, through the HomeKit bridge (`HouseHomeKit`).
    case homekit

    /// Whether a person behind this source can be asked "are you sure?" and answer. HomeKit has no
    /// such question: a `confirm: true` device (or a mode that needs a yes) is refused from it,
    /// as a refusal the house records, never a question nobody sees.
    public var canConfirm: Bool { self != .homekit }
}

/// Who may do what: per source, devices it may not touch, and whether it may actuate
/// `confirm: true` devices at all.
public struct Permissions: Sendable, Equatable {
    public struct Grant: Sendable, Equatable {
        /// Device ids this source may not actuate.
        public var denyDevices: Set<DeviceID>
        /// Whether this source may actuate devices marked `confirm: true` (after confirming).
        public var allowConfirmDevices: Bool
        /// Modes this source may not set.
        public var denyModes: Set<ModeID>

        public init(denyDevices: Set<DeviceID> = [], allowConfirmDevices: Bool = true, denyModes: Set<ModeID> = []) {
            self.denyDevices = denyDevices
            self.allowConfirmDevices = allowConfirmDevices
            self.denyModes = denyModes
        }
    }

    public var grants: [IntentSource: Grant]

    public init(grants: [IntentSource: Grant] = [:]) {
        self.grants = grants
    }

    /// What `source` may do: its entry, or everything; a source that cannot confirm may never
    /// switch what needs a yes.
    public func grant(for source: IntentSource) -> Grant {
        var grant = grants[source] ?? Grant()
        if !source.canConfirm { grant.allowConfirmDevices = false }
        return grant
    }
}
