/// The MQTT topics of the house, under one base topic (`house` by default).
///
/// | topic | direction |
/// |---|---|
/// | `<base>/<room>/<device>/set` | in |
/// | `<base>/<room>/<device>/state` | out, retained |
/// | `<base>/<room>/<cover>/position`, `.../position/set` | out retained / in (a cover's 0-100) |
/// | `<base>/<room>/<cover>/report` | out, retained (a cover's state and position as JSON) |
/// | `<base>/<room>/<button>/event` | out (a button's presses) |
/// | `<base>/mode/set`, `<base>/mode/state` | in / out retained |
/// | `<base>/intent/request` | in (source `mqtt`) |
/// | `<base>/intent/cli/request` | in (source `cli`: the command line) |
/// | `<base>/intent/response/<id>` | out (default reply topic) |
/// | `<base>/events` | out |
/// | `<base>/node/<node>/status` | out, retained, last will |
/// | `<base>/node/<node>/info` | out, retained (version, start, address) |
/// | `<base>/coordinator` | in and out, retained: the coordinator's claim (`CoordinatorClaim`) |
/// | `<base>/routine/<routine>/run` | in and out, retained: the latest run of a routine, claimed before it runs |
/// | `<base>/mode/timeline` | in and out, retained: every room's modes with their ends, for the next coordinator |
public struct TopicLayout: Sendable, Equatable {
    public var base: String

    public init(base: String = "house") { self.base = base }

    public func deviceSet(room: RoomID, device: DeviceID) -> String { "\(base)/\(room.rawValue)/\(device.rawValue)/set" }
    public func deviceState(room: RoomID, device: DeviceID) -> String { "\(base)/\(room.rawValue)/\(device.rawValue)/state" }
    /// A cover's position, 0 (closed) to 100 (open), retained.
    public func devicePosition(room: RoomID, device: DeviceID) -> String { "\(base)/\(room.rawValue)/\(device.rawValue)/position" }
    /// A cover's state and position in one JSON message (`CoverReport.json`), retained: what
    /// Home Assistant reads, so that a stop part way is one change of state.
    public func deviceReport(room: RoomID, device: DeviceID) -> String { "\(base)/\(room.rawValue)/\(device.rawValue)/report" }
    /// Where a cover is sent to a position (Home Assistant's `set_position_topic`).
    public func devicePositionSet(room: RoomID, device: DeviceID) -> String { "\(base)/\(room.rawValue)/\(device.rawValue)/position/set" }
    /// A sensor's availability (`online` while it has a fresh value, else `offline`), retained.
    public func deviceAvailability(room: RoomID, device: DeviceID) -> String { "\(base)/\(room.rawValue)/\(device.rawValue)/availability" }
    /// A button's presses (`{"event_type":"single"}`), not retained (Home Assistant's event entity).
    public func deviceEvent(room: RoomID, device: DeviceID) -> String { "\(base)/\(room.rawValue)/\(device.rawValue)/event" }
    /// A metered device's energy today (kWh), retained.
    public func deviceEnergy(room: RoomID, device: DeviceID) -> String { "\(base)/\(room.rawValue)/\(device.rawValue)/energy" }
    public var modeSet: String { "\(base)/mode/set" }
    public var modeState: String { "\(base)/mode/state" }
    public var intentRequest: String { "\(base)/intent/request" }
    /// Requests from `housectl` at the command line (source `cli`). Keep it writable only by the
    /// controller's own MQTT user in the broker's ACL: automation users go through `intentRequest`.
    public var cliRequest: String { "\(base)/intent/cli/request" }
    public func intentResponse(id: String) -> String { "\(base)/intent/response/\(id)" }
    public var events: String { "\(base)/events" }
    /// Today's energy use in kWh, retained.
    public var energyState: String { "\(base)/energy/state" }
    public func nodeStatus(node: NodeID) -> String { "\(base)/node/\(node.rawValue)/status" }
    /// A node's version, start and address as JSON, retained (`NodeInfo`).
    public func nodeInfo(node: NodeID) -> String { "\(base)/node/\(node.rawValue)/info" }
    /// The filter of every node's status topic.
    public var nodeStatusFilter: String { "\(base)/node/+/status" }
    /// The coordinator's claim, retained (see `CoordinatorElection`).
    public var coordinator: String { "\(base)/coordinator" }
    /// Where a node sends itself a probe after subscribing: its echo comes after any retained message.
    public func nodeProbe(node: NodeID) -> String { "\(base)/node/\(node.rawValue)/probe" }
    /// The latest run of a routine, claimed by the coordinator before it runs, retained.
    public func routineRun(routine: RoutineID) -> String { "\(base)/routine/\(routine.rawValue)/run" }
    /// The filter of every routine's run claims.
    public var routineRunFilter: String { "\(base)/routine/+/run" }
    /// Every room's mode timeline (the temporary modes and when they end), retained by the
    /// coordinator for the node that takes over.
    public var modeTimeline: String { "\(base)/mode/timeline" }

    /// The `(room, cover)` of a cover's `position/set` topic, or nil when `topic` is not one.
    public func parsePositionSet(_ topic: String) -> (room: RoomID, device: DeviceID)? {
        guard topic.hasSuffix("/position/set") else { return nil }
        return parseDeviceSet(String(topic.dropLast("/position/set".count)) + "/set")
    }

    /// The `(room, device)` of a device `set` topic, or nil when `topic` is not one.
    public func parseDeviceSet(_ topic: String) -> (room: RoomID, device: DeviceID)? {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
        let baseParts = base.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == baseParts.count + 3, Array(parts.prefix(baseParts.count)) == baseParts,
              parts.last == "set", parts[baseParts.count] != "mode", parts[baseParts.count] != "intent"
        else { return nil }
        return (RoomID(String(parts[baseParts.count])), DeviceID(String(parts[baseParts.count + 1])))
    }
}
