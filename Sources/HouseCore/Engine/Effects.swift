import Foundation

/// What one command did, as `HouseEngine.perform` returns it: the messages to publish, in order
/// (relay states first, as the relays switched), the records to keep, the lines to log and when
/// the engine next needs a tick. The bus's consumer carries them out once the engine has
/// returned; the engine itself does no I/O.
public struct Effects: Sendable {
    /// An MQTT message to publish (QoS 1).
    public struct Message: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
        public var retain: Bool

        public init(topic: String, payload: [UInt8], retain: Bool) {
            self.topic = topic
            self.payload = payload
            self.retain = retain
        }

        public init(topic: String, string: String, retain: Bool) {
            self.init(topic: topic, payload: Array(string.utf8), retain: retain)
        }

        /// The payload as text.
        public var string: String { String(decoding: payload, as: UTF8.self) }
    }

    /// Something to keep in the state store.
    public enum Record: Sendable {
        case history(HistoryRecord)
        /// A relay of this node switched (for `power_on: restore` and restarts).
        case relayState(DeviceID, DeviceState, at: Date)
        case modes(ModeSnapshot, at: Date)
        case coverPosition(DeviceID, Double)
        /// A routine's run was carried out.
        case runDone(ScheduledRun, at: Date)
        /// A request id was seen (a repeat within the window is not carried out again).
        case commandSeen(String, at: Date)
        /// A metered device started or stopped using energy.
        case energyEdge(EnergyEdge)
        /// The controller ran at this time (energy and routines catch up from it after a restart).
        case lastActive(Date)
        /// The minute's record: the energy edges kept since the last one, and `lastActive`.
        case checkpoint(Date)
    }

    /// A line for the log.
    public struct LogLine: Sendable, Equatable {
        public enum Level: Sendable, Equatable { case debug, info, warning, error }
        public var level: Level
        public var text: String
    }

    public var messages: [Message] = []
    public var records: [Record] = []
    public var logs: [LogLine] = []
    /// When the engine next has a timer due (a relay's pulse end, a mode's end, an opener's
    /// deadline, the minute's checks); nil: none.
    public var wake: WallInstant?

    public init() {}

    mutating func publish(_ topic: String, _ payload: String, retain: Bool) {
        messages.append(Message(topic: topic, string: payload, retain: retain))
    }

    mutating func log(_ level: LogLine.Level, _ text: String) {
        logs.append(LogLine(level: level, text: text))
    }
}
