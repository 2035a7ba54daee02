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

    /// Compact JSON with sorted keys, as published on `<base>/events` (`bytes` as text).
    public var json: String { String(decoding: bytes, as: UTF8.self) }

    /// The JSON's UTF-8 bytes, written field by field in key order into one buffer (once per
    /// command: `JSONEncoder`, or building a `String` first, cost more than switching the relay).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(160 + intent.utf8.count + dialog.utf8.count + commands.reduce(0) { $0 + $1.utf8.count + 3 })
        out += #"{"commands":["#.utf8
        for (i, command) in commands.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.write(string: command, to: &out)
        }
        out += #"],"dialog":"#.utf8
        JSONValue.write(string: dialog, to: &out)
        out += #","intent":"#.utf8
        JSONValue.write(string: intent, to: &out)
        out += #","outcome":"#.utf8
        JSONValue.write(string: outcome.rawValue, to: &out)
        out += #","parameters":{"#.utf8
        for (i, key) in parameters.keys.sorted().enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.write(string: key, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONValue.write(string: parameters[key]!, to: &out)
        }
        out += #"},"source":"#.utf8
        JSONValue.write(string: source.rawValue, to: &out)
        out += #","time":"#.utf8
        JSONValue.write(string: time, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}

extension Donation {
    /// This donation as a JSON-ready event.
    public var event: DonationEvent { event(summary: intent.description) }

    /// The event, with the intent's `description` made already (the history's summary).
    func event(summary: String) -> DonationEvent {
        DonationEvent(intent: summary, parameters: parameters, source: source, time: time.iso8601UTC,
                      outcome: outcome, dialog: dialog, commands: commands.map(\.description))
    }
}
