import Foundation
import HouseCore
import HouseDaemon

/// A handled intent as the page lists it: when (house time), who, from where, what, the answer.
struct HistoryView: Sendable, Equatable, Codable {
    var at: String
    var time: String
    var source: String
    var kind: String
    var summary: String
    var outcome: String
    var dialog: String

    init(_ record: StateStore.HistoryRecord, calendar: HouseCalendar) {
        at = WallInstant(record.at).iso8601UTC
        time = calendar.dateTimeText(record.at, zone: true)
        source = record.source
        kind = record.kind
        summary = record.summary
        outcome = record.outcome
        dialog = record.dialog
    }
}
