import Foundation
import HouseCore

/// A day of the house as one SVG picture, drawn on the server (no script needed to show it): the
/// hours of the day on the house clock with night, twilight and day behind them, one row per
/// routine with its relevance windows, its planned run and the band its random delay may push it
/// into, and a tick where it ran; the household's habits that suggestions are about, as dotted
/// marks at their windows; the modes over the day below; sunrise, sunset, dawn, dusk and now as
/// lines. Times are written as people in the zone know them (GMT/BST, CET/CEST).
/// `housectl routines --svg DATE` writes the same picture (without the habits).
public struct DayPicture: Sendable {
    /// A habit a suggestion is about, at its window on the day drawn (made by the page).
    public struct HabitMark: Sendable {
        /// The suggestion's id.
        var id: String
        /// The suggestion's sentence.
        var text: String
        var start: Date
        var end: Date
    }

    public let plan: DayPlan
    public let configuration: HouseConfiguration
    /// Drawn as a line when it falls on the day.
    public let now: Date?
    /// Drawn in a row of their own, each a dotted mark at its window.
    public let habits: [HabitMark]

    public init(plan: DayPlan, configuration: HouseConfiguration, now: Date?, habits: [HabitMark] = []) {
        self.plan = plan
        self.configuration = configuration
        self.now = now
        self.habits = habits.filter { $0.end > plan.start && $0.start < plan.end }
    }

    static let width = 960.0
    static let left = 170.0
    static let right = 16.0
    static let top = 52.0
    static let rowHeight = 26.0

    public var svg: String {
        let calendar = HouseCalendar(house: configuration.house)
        let zone = calendar.timeZone
        let routines = configuration.routines.filter { r in
            plan.windows.contains { $0.routine == r.id } || plan.runs.contains { $0.routine == r.id } || plan.ran.contains { $0.routine == r.id }
        }
        let modeRows = [true, false].filter { planned in plan.modes.contains { $0.planned == planned } }
        let habitRows = habits.isEmpty ? 0 : 1
        let chartBottom = Self.top + Double(routines.count + habitRows + modeRows.count) * Self.rowHeight
        let height = chartBottom + 40
        let span = max(1, plan.end.timeIntervalSince(plan.start))
        let plotWidth = Self.width - Self.left - Self.right
        func x(_ d: Date) -> Double { Self.left + max(0, min(1, d.timeIntervalSince(plan.start) / span)) * plotWidth }
        func time(_ d: Date) -> String { calendar.clockText(d) }
        // The end of an interval: the day's end is 24:00, not the next day's 00:00.
        func until(_ d: Date) -> String { d >= plan.end ? "24:00" : time(d) }
        func num(_ v: Double) -> String { String(format: "%.1f", v) }

        var out = #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(Int(Self.width)) \#(Int(height))" width="100%" role="img" class="day-picture" data-date="\#(plan.day)">"#
        let zones = Set([zone.localName(for: plan.start), zone.localName(for: plan.end.addingTimeInterval(-1))]).sorted().joined(separator: "/")
        out += "<title>\(SVG.escape("\(configuration.house.name): \(plan.day.weekdayName) \(plan.day)"))</title>"
        out += #"<text x="8" y="20" font-size="16" font-weight="bold" fill="\#u{23}222">\#(SVG.escape("\(plan.day.weekdayName) \(plan.day)"))</text>"#
        out += #"<text x="8" y="38" font-size="12" fill="\#u{23}555">times in \#(SVG.escape(zones)) (\#(SVG.escape(zone.identifier)))</text>"#

        // Night, twilight and day behind the rows.
        let sun = Dictionary(plan.sun.map { ($0.event, $0.at) }) { a, _ in a }
        var bands: [(Date, Date, String, String)] = []
        if let dawn = sun[.dawn], let rise = sun[.sunrise], let set = sun[.sunset], let dusk = sun[.dusk] {
            bands = [(plan.start, dawn, "#d9dcef", "night"), (dawn, rise, "#ece7f5", "twilight"), (rise, set, "#fff8e1", "day"),
                     (set, dusk, "#ece7f5", "twilight"), (dusk, plan.end, "#d9dcef", "night")]
        } else {
            bands = [(plan.start, plan.end, "#f4f4f4", "no sun events")]
        }
        for (from, to, color, name) in bands where to > from {
            out += #"<rect class="sky" data-kind="\#(name)" x="\#(num(x(from)))" y="\#(num(Self.top - 6))" width="\#(num(x(to) - x(from)))" height="\#(num(chartBottom - Self.top + 6))" fill="\#(color)"/>"#
        }

        // Hours.
        var hour = plan.start
        while hour < plan.end {
            let hx = num(x(hour))
            let label = time(hour)
            let major = label.hasSuffix(":00") && (Int(label.prefix(2)) ?? 1) % 3 == 0
            out += #"<line x1="\#(hx)" y1="\#(num(Self.top - 6))" x2="\#(hx)" y2="\#(num(chartBottom))" stroke="\#(major ? "#bbb" : "#e2e2e2")" stroke-width="1"/>"#
            if major {
                out += #"<text x="\#(hx)" y="\#(num(chartBottom + 16))" font-size="11" text-anchor="middle" fill="\#u{23}444">\#(label)</text>"#
            }
            hour = hour.addingTimeInterval(3600)
        }

        // One row per routine.
        for (index, routine) in routines.enumerated() {
            let y = Self.top + Double(index) * Self.rowHeight
            let id = SVG.escape(routine.id.rawValue)
            out += #"<g class="routine" data-routine="\#(id)">"#
            out += #"<text x="8" y="\#(num(y + 16))" font-size="12" fill="\#u{23}222">\#(SVG.escape(SVG.clip(routine.shortcut, 26)))</text>"#
            for w in plan.windows where w.routine == routine.id {
                out += #"<rect class="window" data-routine="\#(id)" x="\#(num(x(w.start)))" y="\#(num(y + 4))" width="\#(num(max(1, x(w.end) - x(w.start))))" height="16" rx="4" fill="\#u{23}8ecae6" fill-opacity="0.8">"#
                out += "<title>\(SVG.escape("\"\(routine.shortcut)\" is relevant \(time(w.start))-\(until(w.end))"))</title></rect>"
            }
            for r in plan.runs where r.routine == routine.id {
                if r.latest > r.nominal {
                    out += #"<rect class="jitter" data-routine="\#(id)" x="\#(num(x(r.nominal)))" y="\#(num(y + 8))" width="\#(num(max(1, x(r.latest) - x(r.nominal))))" height="8" fill="\#u{23}fb8500" fill-opacity="0.35">"#
                    out += "<title>\(SVG.escape("random delay: runs between \(time(r.nominal)) and \(time(r.latest))"))</title></rect>"
                }
                out += #"<path class="run" data-routine="\#(id)" d="M\#(num(x(r.nominal))) \#(num(y + 3)) l5 9 l-5 9 l-5 -9 z" fill="\#u{23}fb8500">"#
                out += "<title>\(SVG.escape("planned \(time(r.nominal)): \(r.action)"))</title></path>"
            }
            for ran in plan.ran where ran.routine == routine.id {
                out += #"<circle class="ran" data-routine="\#(id)" cx="\#(num(x(ran.at)))" cy="\#(num(y + 12))" r="5" fill="\#u{23}2a9d8f" stroke="\#u{23}fff" stroke-width="1.5">"#
                out += "<title>\(SVG.escape("ran at \(time(ran.at))"))</title></circle>"
            }
            out += "</g>"
        }

        // The habits suggestions are about: dotted, at their windows.
        if !habits.isEmpty {
            let y = Self.top + Double(routines.count) * Self.rowHeight
            out += #"<g class="habits"><text x="8" y="\#(num(y + 16))" font-size="12" font-style="italic" fill="\#u{23}222">habits (suggested)</text>"#
            for mark in habits {
                out += #"<rect class="habit" data-suggestion="\#(SVG.escape(mark.id))" x="\#(num(x(mark.start)))" y="\#(num(y + 4))" width="\#(num(max(1, x(mark.end) - x(mark.start))))" height="16" rx="4" fill="\#u{23}6a4c93" fill-opacity="0.12" stroke="\#u{23}6a4c93" stroke-width="1.5" stroke-dasharray="2 3">"#
                out += "<title>\(SVG.escape("\(time(mark.start))-\(until(mark.end)): \(mark.text)"))</title></rect>"
            }
            out += "</g>"
        }

        // The modes: what the routines plan, and what is set now.
        for (offset, planned) in modeRows.enumerated() {
            let y = Self.top + Double(routines.count + habitRows + offset) * Self.rowHeight
            out += #"<text x="8" y="\#(num(y + 16))" font-size="12" font-style="italic" fill="\#u{23}222">\#(planned ? "modes (routines)" : "modes set now")</text>"#
            for span in plan.modes where span.planned == planned {
                let color = SVG.color(for: span.mode.rawValue)
                let rooms = span.rooms.isEmpty ? "the house" : span.rooms.map(\.rawValue).joined(separator: ", ")
                let w = max(1, x(span.end) - x(span.start))
                out += #"<rect class="mode" data-mode="\#(SVG.escape(span.mode.rawValue))" x="\#(num(x(span.start)))" y="\#(num(y + 4))" width="\#(num(w))" height="16" rx="3" fill="\#(color)" fill-opacity="\#(span.timed ? "0.55" : "0.85")" stroke="\#u{23}555" stroke-width="0.5"\#(span.timed ? #" stroke-dasharray="3 2""# : "")>"#
                let carried = span.since < plan.start ? ", since \(calendar.localDate(of: span.since).weekdayName) \(calendar.dateTimeText(span.since))" : ""
                out += "<title>\(SVG.escape("\(span.mode) for \(rooms), \(time(span.start))-\(until(span.end))\(span.timed ? " (temporary)" : "")\(carried)"))</title></rect>"
                if w > 40 {
                    out += #"<text x="\#(num(x(span.start) + 4))" y="\#(num(y + 16))" font-size="11" fill="\#u{23}111">\#(SVG.escape(SVG.clip(span.mode.rawValue, Int(w / 7))))</text>"#
                }
            }
        }

        // Sun events and now.
        for mark in plan.sun {
            let mx = num(x(mark.at))
            out += #"<line class="sun" data-event="\#(mark.event.rawValue)" x1="\#(mx)" y1="\#(num(Self.top - 8))" x2="\#(mx)" y2="\#(num(chartBottom))" stroke="\#u{23}e9a100" stroke-width="1" stroke-dasharray="2 3"><title>\#(mark.event.rawValue) \#(time(mark.at))</title></line>"#
            if mark.event == .sunrise || mark.event == .sunset {
                out += #"<text x="\#(mx)" y="\#(num(Self.top - 10))" font-size="10" text-anchor="middle" fill="\#u{23}8a6d00">\#(mark.event.rawValue) \#(time(mark.at))</text>"#
            }
        }
        if let now, now >= plan.start, now < plan.end {
            let nx = num(x(now))
            out += #"<line class="now" x1="\#(nx)" y1="\#(num(Self.top - 6))" x2="\#(nx)" y2="\#(num(chartBottom + 4))" stroke="\#u{23}d62828" stroke-width="2"><title>now, \#(time(now))</title></line>"#
        }
        if routines.isEmpty && modeRows.isEmpty && habits.isEmpty {
            out += #"<text x="\#(num(Self.left + 8))" y="\#(num(Self.top + 16))" font-size="12" fill="\#u{23}555">No routine is relevant or planned this day.</text>"#
        }
        out += "</svg>"
        return out
    }
}
