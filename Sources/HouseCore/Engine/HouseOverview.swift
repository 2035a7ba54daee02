import Foundation

/// The whole house at one instant, as the page shows it: every room with its devices and their
/// state, each room's mode and when a temporary one ends, and which nodes are there. Codable: the
/// page reads it as JSON.
public struct HouseOverview: Sendable, Equatable, Codable {
    /// A device's line: what it is and how it is.
    public struct DeviceView: Sendable, Equatable, Codable {
        public var id: DeviceID
        public var name: String
        public var kind: DeviceKind
        /// Nil while the device has not reported its state (`value` is then `unknown`).
        public var state: DeviceState?
        /// A sensor's reading, a contact's `open`/`closed`, an opener's state, in words.
        public var value: String?
        /// A cover's state and position.
        public var cover: CoverReport?
        /// What a tap can ask (`on`, `off`, `toggle`, `open`, `close`, `stop`, `position`); empty
        /// for sensors and inputs.
        public var actions: [HouseAction]
        /// Whether it asks "are you sure?" before switching on (`confirm: true`).
        public var confirm: Bool
        /// The node that owns it, when it is wired to one.
        public var node: NodeID?
    }

    /// A room, its mode and its devices.
    public struct RoomView: Sendable, Equatable, Codable {
        public var id: RoomID
        public var name: String
        public var floor: String?
        public var mode: ModeID?
        /// When a temporary mode of the room ends (ISO 8601) and the clock time it ends at.
        public var modeUntil: String?
        public var modeUntilText: String?
        public var devices: [DeviceView]
    }

    /// A node and whether it is online (nil: not heard from yet).
    public struct NodeView: Sendable, Equatable, Codable {
        public var id: NodeID
        public var online: Bool?
        public var primary: Bool
    }

    /// A button: how many presses the controller has seen since it started, and the last one's kind.
    public struct ButtonView: Sendable, Equatable, Codable {
        public var id: DeviceID
        public var presses: Int
        public var last: ButtonPress?
    }

    /// A mode that can be set.
    public struct ModeOption: Sendable, Equatable, Codable {
        public var id: ModeID
        public var name: String
    }

    public var house: String
    /// The house's mode when every room is in it; nil when rooms differ.
    public var mode: ModeID?
    public var rooms: [RoomView]
    public var nodes: [NodeView]
    public var modes: [ModeOption]
    /// The buttons (not among the rooms' devices: nothing is switched on a button).
    public var buttons: [ButtonView]
}
