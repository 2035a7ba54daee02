/// Everything that changes the house, as a value on the command bus: what people and automations
/// ask for, what the house learns by itself, and the timers' ticks. Only the bus's one consumer
/// hands them to `HouseEngine.perform`, one at a time, in the order they came.
public enum HouseCommand: Sendable {
    /// An intent: a device's or the mode's `set` topic, the page, a rule; `requestID` is the id of
    /// the message that asked, when it gave one (a repeat is answered with the first answer).
    indirect case intent(HouseIntent, source: IntentSource, answers: IntentAnswers, requestID: String?)
    /// A routine's run: its intent, from source `routine`, confirmed in advance when the routine
    /// says so; the run is recorded done with what it did.
    indirect case routineRun(ScheduledRun, HouseIntent, confirmed: Bool)
    /// A relay command from the controller that resolved the intent on another node.
    indirect case peerRelay(PeerRelayCommand)
    /// An `intent/request`: a phrase or a typed intent (a history query is the store's to answer).
    indirect case request(IntentRequest, source: IntentSource)
    /// Timers are due (a pulse's end, a max-on, a mode's end, an opener's deadline, the minute's
    /// checks). Every command first carries out what is due; a tick is a command with nothing else.
    case tick
    /// A device's state from elsewhere: another node's relay or input, a device reached over MQTT
    /// (`mirror`: its state is published on the house's state topic too). A retained one is a
    /// state caught up with, which fires no rule.
    case stateReport(device: DeviceID, state: DeviceState, retained: Bool, mirror: Bool)
    /// An input of this node did something (a button press, a contact's new level).
    indirect case input(InputEvent)
    /// Another node's button was pressed (its `event` topic): noted for what watches the house
    /// (Apple Home); its rules ran on its own node.
    case pressReport(device: DeviceID, ButtonPress)
    /// Another node's opener published its state.
    indirect case openerReport(device: DeviceID, CoverState)
    /// Another node's cover published where it is.
    indirect case coverReport(device: DeviceID, CoverReport)
    /// A message on a sensor's topic (its reading is taken on the house's clock).
    indirect case sensorMessage(device: DeviceID, payload: [UInt8])
    /// Another node said it is online or offline.
    case nodeStatus(node: NodeID, online: Bool)
    /// A message on a topic a rule listens to.
    indirect case ruleMessage(topic: String, payload: [UInt8], retained: Bool)
    /// This node starts coordinating the house in `term`; `modes` is the mode timeline the last
    /// coordinator published (nil: none heard).
    indirect case coordinationStarted(term: UInt64, modes: ModeSnapshot?)
    /// The connection to the broker is (again) up: every retained state this node keeps goes out.
    case republish
    /// The controller stops: each relay's shutdown policy, published and recorded.
    case shutdown
}
