import Foundation

/// The JSON form of a donation, as published on `<base>/events` and kept in history.
public struct DonationEvent: Sendable, Equatable, Codable {
    public var intent: String
    public var parameters: [String: String]
    public var source: IntentSource
    /// ISO 8601, UTC, with milliseconds.
    public var time: String
    public var outcome: HouseResponse.Code
    public var dialog: String
    public var commands: [String]

    /// Compact JSON with sorted keys, as published on `<base>/events`, written field by field
    /// in key order (once per command: `JSONEncoder`, or even a `JSONValue` tree, cost more than
    /// switching the relay).
    public var json: String {
        var out = ""
        out.reserveCapacity(160 + intent.utf8.count + dialog.utf8.count + commands.reduce(0) { $0 + $1.utf8.count + 3 })
        out += #"{"commands":["#
        for (i, command) in commands.enumerated() {
            if i > 0 { out += "," }
            JSONValue.write(string: command, to: &out)
        }
        out += #"],"dialog":"#
        JSONValue.write(string: dialog, to: &out)
        out += #","intent":"#
        JSONValue.write(string: intent, to: &out)
        out += #","outcome":"#
        JSONValue.write(string: outcome.rawValue, to: &out)
        out += #","parameters":{"#
        for (i, key) in parameters.keys.sorted().enumerated() {
            if i > 0 { out += "," }
            JSONValue.write(string: key, to: &out)
            out += ":"
            JSONValue.write(string: parameters[key]!, to: &out)
        }
        out += #"},"source":"#
        JSONValue.write(string: source.rawValue, to: &out)
        out += #","time":"#
        JSONValue.write(string: time, to: &out)
        out += "}"
        return out
    }
}

extension Donation {
    /// This donation as a JSON-ready event.
    public var event: DonationEvent {
        DonationEvent(intent: intent.description, parameters: parameters, source: source, time: time.iso8601UTC,
                      outcome: outcome, dialog: dialog, commands: commands.map(\.description))
    }
}
