import Foundation

/// What the community grammar answers, in its language: the `responses` of a
/// `home-assistant-intents` language file, for the intents housectl reads and the errors it meets.
///
/// The responses are Jinja templates, rendered by Home Assistant. housectl renders the part of
/// Jinja they mostly use: text, `{{ slots.X }}`, a dictionary made with `{% set NAME = {...} %}`
/// and read with `NAME.get(slots.X, slots.X)` or `NAME[slots.X]`, and the filters `capitalize`,
/// `lower`, `upper` and `trim`. A template that needs more (`{% if %}`, other filters, the
/// device's state) is not rendered: the caller keeps its own answer.
public struct GrammarResponses: Sendable, Equatable {
    /// The language code ("de").
    public var language: String
    /// Response templates by intent, then by response name ("HassTurnOn" -> "lights_area" -> ...).
    var intents: [String: [String: String]]
    /// Error templates by name ("no_intent", "no_area", ...).
    var errors: [String: String]

    public init(language: String, intents: [String: [String: String]] = [:], errors: [String: String] = [:]) {
        self.language = language
        self.intents = intents
        self.errors = errors
    }

    /// The answer to `intent` under the template's response name (`response`, else "default"),
    /// with `slots` filled in; nil when there is none or it needs more than housectl renders.
    public func answer(intent: String, response: String?, slots: [String: String]) -> String? {
        guard let templates = intents[intent], let template = templates[response ?? "default"] ?? templates["default"] else { return nil }
        return Self.render(template, slots: slots)
    }

    /// The error `name` ("no_intent") with `slots` filled in, when it renders.
    public func error(_ name: String, slots: [String: String] = [:]) -> String? {
        errors[name].flatMap { Self.render($0, slots: slots) }
    }

    /// Renders `template`; nil for a construct outside the subset described above.
    static func render(_ template: String, slots: [String: String]) -> String? {
        var out = ""
        var tables: [String: [String: String]] = [:]
        var rest = Substring(template)
        while let open = rest.firstRange(of: "{") {
            let after = rest[open.upperBound...]
            guard let kind = after.first, kind == "{" || kind == "%" || kind == "#" else {
                out += rest[..<open.upperBound]
                rest = after
                continue
            }
            let closing = kind == "{" ? "}}" : kind == "%" ? "%}" : "#}"
            guard let close = after.dropFirst().firstRange(of: closing) else { return nil }
            out += rest[..<open.lowerBound]
            var body = after.dropFirst()[..<close.lowerBound]
            rest = after.dropFirst()[close.upperBound...]
            // Whitespace control ("{%-", "-%}") changes only spaces, which are collapsed below.
            if body.first == "-" { body = body.dropFirst() }
            if body.last == "-" { body = body.dropLast() }
            let text = body.trimmingCharacters(in: .whitespacesAndNewlines)
            switch kind {
            case "{":
                guard let value = expression(text, slots: slots, tables: tables) else { return nil }
                out += value
            case "%":
                guard text.hasPrefix("set "), let equals = text.firstIndex(of: "=") else { return nil }
                let name = text[text.index(text.startIndex, offsetBy: 4)..<equals].trimmingCharacters(in: .whitespaces)
                guard let table = dictionary(text[text.index(after: equals)...]) else { return nil }
                tables[name] = table
            default:
                continue
            }
        }
        out += rest
        return out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// `slots.X`, `T.get(slots.X, slots.X)` or `T[slots.X]`, then filters (`| capitalize`).
    private static func expression(_ text: String, slots: [String: String], tables: [String: [String: String]]) -> String? {
        var parts = text.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        let base = parts.removeFirst()
        func slot(_ reference: Substring) -> String? {
            let name = reference.trimmingCharacters(in: .whitespaces)
            guard name.hasPrefix("slots.") else { return nil }
            return slots[String(name.dropFirst(6))]
        }
        var value: String
        if base.hasPrefix("slots.") {
            guard let v = slot(Substring(base)) else { return nil }
            value = v
        } else if let dot = base.firstIndex(of: "."), base[dot...].hasPrefix(".get("), base.hasSuffix(")"),
                  let table = tables[String(base[..<dot])] {
            let arguments = base[base.index(dot, offsetBy: 5)..<base.index(before: base.endIndex)].split(separator: ",")
            guard let key = arguments.first.flatMap(slot) else { return nil }
            guard let found = table[key] ?? (arguments.count > 1 ? slot(arguments[1]) : nil) else { return nil }
            value = found
        } else if let bracket = base.firstIndex(of: "["), base.hasSuffix("]"), let table = tables[String(base[..<bracket])] {
            guard let key = slot(base[base.index(after: bracket)..<base.index(before: base.endIndex)]), let found = table[key] else { return nil }
            value = found
        } else {
            return nil
        }
        for filter in parts {
            switch filter {
            case "capitalize": value = value.prefix(1).uppercased() + value.dropFirst().lowercased()
            case "lower": value = value.lowercased()
            case "upper": value = value.uppercased()
            case "trim": value = value.trimmingCharacters(in: .whitespacesAndNewlines)
            default: return nil
            }
        }
        return value
    }

    /// A dictionary literal of strings (`{"awning": "Markise", 'blind': 'Jalousie'}`).
    private static func dictionary(_ text: Substring) -> [String: String]? {
        var chars = text.trimmingCharacters(in: .whitespacesAndNewlines)[...]
        guard chars.first == "{", chars.last == "}" else { return nil }
        chars = chars.dropFirst().dropLast()
        var result: [String: String] = [:]
        func skipSpace() { while let c = chars.first, c.isWhitespace { chars = chars.dropFirst() } }
        func string() -> String? {
            skipSpace()
            guard let quote = chars.first, quote == "\"" || quote == "'" else { return nil }
            chars = chars.dropFirst()
            guard let end = chars.firstIndex(of: quote) else { return nil }
            let s = String(chars[..<end])
            chars = chars[chars.index(after: end)...]
            return s
        }
        while true {
            skipSpace()
            if chars.isEmpty { return result }
            guard let key = string() else { return nil }
            skipSpace()
            guard chars.first == ":" else { return nil }
            chars = chars.dropFirst()
            guard let value = string() else { return nil }
            result[key] = value
            skipSpace()
            if chars.first == "," { chars = chars.dropFirst() }
        }
    }
}
