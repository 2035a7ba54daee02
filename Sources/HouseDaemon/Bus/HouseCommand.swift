import HouseCore
import HouseGPIO
import HouseMQTT

/// Everything that changes the house, as a value on the `CommandBus`: the commands people and
/// automations send, and the changes the house learns of by itself. Only the bus's one consumer
/// acts on them, one at a time, in the order they came.
///
/// A burst waits on the bus as these values (10,000 commands back to back from one flow): the
/// commands of a burst (`setDevice`) and the relay edges they cause (`stateChanged`, when a rule
/// watches the device) are held inline, the rest out of line (`indirect`), so a waiting command
/// is one small slot of the bus's ring and no allocation of its own (`CommandBusTests` checks
/// the size).
enum HouseCommand: Sendable {
    /// A plain command on a device's `set` topic (ON, OFF, TOGGLE, OPEN...) from MQTT, with no id,
    /// no reply wanted and no position: the intent `DeviceSetCommand.intent(for:)` makes of it.
    case setDevice(DeviceID, HouseAction, confirmed: Bool)
    /// An intent from a `set` topic, the mode topic or a routine; `requestID` is the id of the
    /// message that asked, when it gave one (a repeat is answered with the first answer).
    indirect case intent(HouseIntent, source: IntentSource, answers: IntentAnswers, requestID: String?)
    /// A routine's run: its intent, from source `routine`, confirmed in advance when the routine
    /// says so; the run is marked done in the same commit as what it did.
    indirect case routineRun(ScheduledRun, HouseIntent, confirmed: Bool)
    /// A relay command from the controller that resolved the intent on another node.
    indirect case peerRelay(PeerRelayCommand)
    /// An `intent/request`: a phrase, a typed intent or a history query.
    indirect case request(IntentRequest, source: IntentSource)
    /// A temporary mode ran out: the previous modes come back (history, events and rules see it).
    case revertExpiredMode
    /// A device's state as the house learns it: a relay edge (of a command, when a rule watches
    /// the device, or of the bank on its own: pulse end, watchdog, interlock), another node, a
    /// remote device. `note` sets it as the device's state (a command's own edge is known
    /// already); `rules` says whether the device-state rules fire.
    case stateChanged(device: DeviceID, state: DeviceState, note: Bool, rules: RuleFiring)
    /// A winding of a cover of this node went on or off (the relay bank's edge, at `at`): the
    /// cover starts or stops moving.
    indirect case coverEdge(relay: DeviceID, on: Bool, at: WallInstant)
    /// An input of this node did something (a button press, a contact's new level).
    indirect case input(InputEvent)
    /// An opener of this node was pressed or released (its relay's edge), or a press ran out of
    /// time (`checkOpeners`).
    case openerEdge(device: DeviceID)
    case checkOpeners
    /// Another node's opener published its state.
    indirect case openerReport(device: DeviceID, CoverState)
    /// Another node's cover published where it is.
    indirect case coverReport(device: DeviceID, CoverReport)
    /// A minute went by: sensors whose value is older than their `stale_after` become unavailable.
    case checkSensors
    /// A message on a sensor's topic (its reading is taken on the house's clock).
    indirect case sensorMessage(device: DeviceID, payload: [UInt8])
    /// Another node said it is online or offline.
    case nodeStatus(node: NodeID, online: Bool)
    /// A message on a topic a rule listens to.
    indirect case ruleMessage(MQTTMessage)
    /// This node starts coordinating the house in `term`; `modes` is the mode timeline the last
    /// coordinator published (nil: none heard).
    indirect case coordinationStarted(term: UInt64, modes: HouseService.ModeSnapshot?)

    /// Whether a state change fires the device-state rules.
    enum RuleFiring: Sendable {
        /// Always (a relay edge: the change happened).
        case always
        /// Only when the state differs from the one the house knew (a peer's report).
        case ifChanged
        /// Never (a retained state caught up with, a kept state after a cancelled switch).
        case never
    }
}
