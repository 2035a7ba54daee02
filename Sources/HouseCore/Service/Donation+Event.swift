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
}

extension Donation {
    /// This donation as a JSON-ready event.
    public var event: DonationEvent {
        // ISO8601FormatStyle: no formatter (and no ICU data) created per event.
        let time = time.date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
        return DonationEvent(intent: intent.description, parameters: parameters, source: source, time: time,
                             outcome: outcome, dialog: dialog, commands: commands.map(\.description))
    }
}
