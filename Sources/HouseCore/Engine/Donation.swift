/// The record of a handled intent (SiriKit's "donation"): what ran, with which resolved
/// parameters, from where, when, and how it ended. The daemon publishes these on `<base>/events`
/// and keeps them as history.
public struct Donation: Sendable, Equatable {
    public var intent: HouseIntent
    /// Resolved parameter values by name (`device: bedroom-ceiling-light,bedroom-bedside-lamp`).
    public var parameters: [String: String]
    public var source: IntentSource
    public var time: WallInstant
    /// `success`, or `failure`.
    public var outcome: HouseResponse.Code
    /// What was answered.
    public var dialog: String
    public var commands: [DeviceCommand]

    public init(intent: HouseIntent, parameters: [String: String], source: IntentSource, time: WallInstant,
                outcome: HouseResponse.Code, dialog: String, commands: [DeviceCommand]) {
        self.intent = intent
        self.parameters = parameters
        self.source = source
        self.time = time
        self.outcome = outcome
        self.dialog = dialog
        self.commands = commands
    }
}
