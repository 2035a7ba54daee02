import Foundation

/// One handled intent: the donation, as stored.
public struct HistoryRecord: Sendable, Equatable {
    public var seq: Int64?
    public var at: Date
    public var source: String
    /// `control`, `mode`, `query`, `routine`.
    public var kind: String
    /// What ran, in a few words ("bedroom-light off").
    public var summary: String
    /// `success` or `failure`.
    public var outcome: String
    public var dialog: String
    /// JSON of the resolved parameters.
    public var details: String?
    public var requestID: String?
    /// What a command carried out did, as a JSON array of the habit events `housectl suggestions
    /// --from-history` reads, without their time: `[{"action":"on","device":"kitchen-light"}]`,
    /// `[{"mode":"night"}]`, `[{"routine":"good-night"}]`; nil when it did none of these.
    public var did: String?

    public init(seq: Int64? = nil, at: Date, source: String, kind: String, summary: String, outcome: String,
                dialog: String, details: String? = nil, requestID: String? = nil, did: String? = nil) {
        self.seq = seq
        self.at = at
        self.source = source
        self.kind = kind
        self.summary = summary
        self.outcome = outcome
        self.dialog = dialog
        self.details = details
        self.requestID = requestID
        self.did = did
    }

    /// `did` of an outcome carried out: each device switched on or off, or a cover opened or
    /// closed (a toggle by the state it left), the mode set, or the routine run.
    static func did(_ outcome: IntentOutcome) -> String? {
        guard outcome.status == .done, !outcome.dryRun else { return nil }
        // One buffer for the whole array: this runs for every command carried out.
        var out: [UInt8] = [UInt8(ascii: "[")]
        func add(_ key: String, _ value: String, action: String? = nil) {
            out += out.count == 1 ? #"{"#.utf8 : #",{"#.utf8
            if let action {
                out += #""action":"#.utf8
                JSONValue.write(string: action, to: &out)
                out.append(UInt8(ascii: ","))
            }
            JSONValue.write(string: key, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONValue.write(string: value, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        switch outcome.intent {
        case .control(let control):
            for device in outcome.parameter("device")?.values.map(\.id) ?? [] {
                let action: String? = switch control.action {
                case .on?, .off?, .open?, .close?: control.action!.rawValue
                case .toggle?: outcome.commands.first { $0.device.rawValue == device }?.resultingState.map { $0.isOn ? "on" : "off" }
                default: nil
                }
                if let action { add("device", device, action: action) }
            }
        case .setMode:
            if let mode = outcome.parameter("mode")?.values.first?.id { add("mode", mode) }
        case .runRoutine:
            if let routine = outcome.parameter("routine")?.values.first?.id { add("routine", routine) }
        case .query:
            break
        }
        guard out.count > 1 else { return nil }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }
}
