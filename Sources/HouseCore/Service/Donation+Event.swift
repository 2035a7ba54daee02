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

    /// Compact JSON with sorted keys, as published on `<base>/events` (written directly: see
    /// `JSONValue.jsonText`).
    public var json: String {
        JSONValue.object([
            "intent": .string(intent), "parameters": .object(parameters.mapValues { .string($0) }),
            "source": .string(source.rawValue), "time": .string(time), "outcome": .string(outcome.rawValue),
            "dialog": .string(dialog), "commands": .array(commands.map { .string($0) }),
        ]).jsonText
    }
}

extension Donation {
    /// This donation as a JSON-ready event.
    public var event: DonationEvent {
        DonationEvent(intent: intent.description, parameters: parameters, source: source, time: time.iso8601UTC,
                      outcome: outcome, dialog: dialog, commands: commands.map(\.description))
    }
}
