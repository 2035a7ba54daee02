import Foundation

/// A sun event, computed locally from the house's latitude and longitude.
public enum SunEvent: String, Sendable, CaseIterable, Hashable {
    /// Civil dawn (sun 6 degrees below the horizon, rising).
    case dawn
    case sunrise
    case noon
    case sunset
    /// Civil dusk (sun 6 degrees below the horizon, setting).
    case dusk
}

/// One edge of a time window, or a run-at trigger: a clock time, or a sun event with an offset
/// (`06:30`, `sunset`, `sunset+30m`, `sunrise-1h15m`, `dusk`).
public enum TimeEdge: Sendable, Hashable, CustomStringConvertible {
    case clock(TimeOfDay)
    case sun(SunEvent, offset: Duration)

    /// Parses the config syntax; nil when it is neither `HH:MM` nor a sun event with an optional
    /// `+`/`-` duration offset.
    public init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let tod = TimeOfDay(t) {
            self = .clock(tod)
            return
        }
        for event in SunEvent.allCases where t.hasPrefix(event.rawValue) {
            let rest = t.dropFirst(event.rawValue.count).trimmingCharacters(in: .whitespaces)
            if rest.isEmpty {
                self = .sun(event, offset: .zero)
                return
            }
            guard let sign = rest.first, sign == "+" || sign == "-",
                  let d = DurationParser.parse(String(rest.dropFirst()).trimmingCharacters(in: .whitespaces))
            else { return nil }
            self = .sun(event, offset: sign == "-" ? .zero - d : d)
            return
        }
        return nil
    }

    public var description: String {
        switch self {
        case .clock(let t): return t.description
        case .sun(let e, let offset):
            if offset == .zero { return e.rawValue }
            let sign = offset < .zero ? "-" : "+"
            return e.rawValue + sign + DurationParser.format(offset < .zero ? .zero - offset : offset)
        }
    }
}

