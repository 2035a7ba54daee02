import Foundation

/// The community's sentence grammar: one language file of the `home-assistant-intents` package
/// (PyPI, Apache-2.0; the templates Home Assistant's Assist and Rhasspy use), read into a
/// `PhraseSet` our matcher compiles beside our own phrases.
///
/// Only the intents a relay house can answer are read (`intents`), each mapped onto ours by
/// `PhraseIntentBuilder`. The grammar's rules and lists are renamed `ha.*` so they never clash
/// with our own; the house fills `ha.name` (devices, modes as scenes, routines as scripts, each
/// with its Home Assistant domain), `ha.area` (rooms) and `ha.floor` (`lists(for:)`). A template
/// that needs a name of some domains only (`requires_context: domain`) reads a list of just
/// those (`ha.name@light+switch`, see `PhraseList.named`); one that takes the area from where it is said
/// (`requires_context: area`) gets the fixed slot `here`. Templates that need a wildcard list
/// (a message, a media search) are left out when compiled.
public struct CommunityGrammar: Sendable, Equatable {
    /// The `home-assistant-intents` release the project's scripts fetch (scripts/intents-data.sh).
    public static let version = "2026.11.25"

    /// The grammar's intents that fit a relay house, and what they become.
    public static let intents: Set<String> = [
        "HassTurnOn", "HassTurnOff", "HassGetState", "HassSetPosition", "HassLightSet",
        "HassClimateSetTemperature", "HassClimateGetTemperature", "HassFanSetSpeed", nevermind,
    ]
    /// "Never mind", "cancel": nothing is done (`PhraseRun.End.dismissed`).
    public static let nevermind = "HassNevermind"

    /// The fixed slot that carries a template's response name ("lights_area"), for the answer
    /// in the grammar's language (`GrammarResponses`). Ours, not the grammar's, as `domainSlot`.
    public static let responseSlot = "context_response"

    /// The fixed slot that carries a template's `requires_context: domain` ("cover+valve"): what
    /// "open {name}" opens. Ours, not the grammar's: `housectl phrases` leaves it out.
    public static let domainSlot = "context_domain"
    /// What the grammar's rules and lists are renamed with, so they never meet ours.
    public static let rulePrefix = "ha."

    /// The language code of the file ("en", "de", "fr").
    public var language: String
    /// The templates, rules, lists, skip words and responses, ready to merge with our own.
    public var phraseSet: PhraseSet

    /// The file of `language` in a folder of the package's data (`<dir>/<language>.json`).
    public static func file(language: String, in directory: URL) -> URL {
        directory.appendingPathComponent("\(language).json")
    }

    /// Loads a language file.
    public static func load(contentsOf url: URL) throws(PhraseError) -> CommunityGrammar {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .invalidFile(source: url.path, message: "cannot read the grammar: \(error.localizedDescription)")
        }
        return try parse(json: data, source: url.path)
    }

    /// Reads a language file's JSON. `source` names it in errors.
    public static func parse(json: Data, source: String) throws(PhraseError) -> CommunityGrammar {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: json) } catch {
            throw .invalidFile(source: source, message: "not valid JSON: \(error.localizedDescription)")
        }
        guard let root = object as? [String: Any], let language = root["language"] as? String,
              let intents = root["intents"] as? [String: Any]
        else { throw .invalidFile(source: source, message: "expected a language file of home-assistant-intents (language, intents)") }
        var reader = Reader(rules: root["expansion_rules"] as? [String: String] ?? [:])
        var set = PhraseSet(language: language)
        set.skipWords = root["skip_words"] as? [String] ?? []
        for name in intents.keys.sorted() where Self.intents.contains(name) {
            guard let body = intents[name] as? [String: Any], let entries = body["data"] as? [[String: Any]] else { continue }
            for entry in entries {
                if var group = reader.group(entry, intent: name) {
                    group.language = language
                    set.groups.append(group)
                }
            }
        }
        set.expansionRules = reader.renamedRules()
        for (name, body) in root["lists"] as? [String: Any] ?? [:] {
            if let list = Self.list(body) { set.lists[Reader.listPrefix + name] = list }
        }
        set.responses = responses(root["responses"], language: language)
        return CommunityGrammar(language: language, phraseSet: set)
    }

    /// The responses of the intents read, and the errors.
    private static func responses(_ body: Any?, language: String) -> GrammarResponses {
        let body = body as? [String: Any] ?? [:]
        var result = GrammarResponses(language: language, errors: body["errors"] as? [String: String] ?? [:])
        for (intent, templates) in body["intents"] as? [String: Any] ?? [:] where Self.intents.contains(intent) {
            if let templates = templates as? [String: String] { result.intents[intent] = templates }
        }
        return result
    }

    /// A grammar list: its values (each `in` a template of its own: "blind[s]"), or a range of
    /// whole numbers; nil for a wildcard (left out).
    /// Spells out a list value's `in` ("blind[s]": "blind", "blinds"); it has no lists or rules.
    private static let valueSpellings = try? PhraseSampler(phraseSet: PhraseSet(), lists: [:])

    private static func list(_ body: Any) -> PhraseList? {
        guard let body = body as? [String: Any] else { return nil }
        if let values = body["values"] as? [Any] {
            var result: [PhraseListValue] = []
            for value in values {
                var spoken: String
                var out: String
                if let text = value as? String {
                    spoken = text
                    out = text
                } else if let pair = value as? [String: Any], let text = pair["in"] as? String {
                    spoken = text
                    out = pair["out"].map { "\($0)" } ?? text
                } else { continue }
                for words in valueSpellings?.expansions(of: spoken, limit: 256) ?? [] where !words.isEmpty {
                    spoken = words.joined(separator: " ")
                    result.append(PhraseListValue(spoken: spoken, value: out))
                }
            }
            return PhraseList(values: result)
        }
        if let range = body["range"] as? [String: Any], let from = range["from"] as? Int, let to = range["to"] as? Int, from <= to {
            let step = max(range["step"] as? Int ?? 1, 1)
            // "fractions": halves (21.5) or tenths (21.3) between the whole numbers.
            let fractions: [Int] = switch range["fractions"] as? String {
            case "halves": [5]
            case "tenths": Array(1...9)
            default: []
            }
            var values: [PhraseListValue] = []
            for n in stride(from: from, through: to, by: step) {
                values.append(PhraseListValue(spoken: String(n), value: String(n)))
                for f in fractions { values.append(PhraseListValue(spoken: "\(n).\(f)", value: "\(n).\(f)")) }
            }
            return PhraseList(values: values)
        }
        return nil
    }

    /// Renames the grammar's rules and lists and follows which of them need a domain's names.
    private struct Reader {
        static let listPrefix = CommunityGrammar.rulePrefix
        let rules: [String: String]
        /// Rules that say `{name}`, directly or through another rule.
        let nameRules: Set<String>
        /// Renamed rules made so far, by new name.
        var made: [String: String] = [:]

        init(rules: [String: String]) {
            self.rules = rules
            var named = Set(rules.filter { $0.value.contains("{name}") || $0.value.contains("{name:") }.keys)
            var grew = true
            while grew {
                grew = false
                for (rule, body) in rules where !named.contains(rule) && named.contains(where: { body.contains("<\($0)>") }) {
                    named.insert(rule)
                    grew = true
                }
            }
            nameRules = named
        }

        /// One `data` entry as a template group; nil when it needs a context we cannot give.
        mutating func group(_ entry: [String: Any], intent: String) -> PhraseTemplateGroup? {
            guard let sentences = entry["sentences"] as? [String] else { return nil }
            var slots: [String: String] = [:]
            for (name, value) in entry["slots"] as? [String: Any] ?? [:] {
                if let several = value as? [Any] { slots[name] = several.map { "\($0)" }.joined(separator: "+") } else { slots[name] = "\(value)" }
            }
            if let response = entry["response"] as? String { slots[CommunityGrammar.responseSlot] = response }
            var domains: String? = nil
            for (key, value) in entry["requires_context"] as? [String: Any] ?? [:] {
                switch key {
                case "domain":
                    let list = (value as? [String]) ?? (value as? String).map { [$0] } ?? []
                    domains = list.sorted().joined(separator: "+")
                    slots[CommunityGrammar.domainSlot] = domains
                case "area" where (value as? [String: Any])?["slot"] as? Bool == true:
                    slots["here"] = "true"
                default:
                    return nil
                }
            }
            if entry["excludes_context"] != nil { return nil }
            // A device's name alone never switches it ("the heater" is no command): such
            // templates of HassTurnOn/HassTurnOff are left out, a scene's or script's kept.
            var said = sentences
            let switches = intent == "HassTurnOn" || intent == "HassTurnOff"
            let onlyScenes = domains.map { $0.split(separator: "+").allSatisfy { $0 == "scene" || $0 == "script" } } ?? false
            if switches && !onlyScenes {
                said = sentences.filter { sentence in
                    (try? PhraseExpression.parse(sentence, rules: rules)).map { saysAWord($0, depth: 0) } ?? false
                }
            }
            guard !said.isEmpty else { return nil }
            let renamed = said.map { rename($0, domains: domains) }
            return PhraseTemplateGroup(intent: intent, sentences: renamed, slots: slots, fromGrammar: true)
        }

        /// True when every way of saying `expr` has a word of its own (not only list values).
        func saysAWord(_ expr: PhraseExpression, depth: Int) -> Bool {
            guard depth < 32 else { return true }
            switch expr {
            case .words(let w): return !w.isEmpty
            case .sequence(let items): return items.contains { saysAWord($0, depth: depth + 1) }
            case .alternatives(let alternatives): return alternatives.allSatisfy { saysAWord($0, depth: depth + 1) }
            case .optional, .list: return false
            case .rule(let name):
                guard let body = rules[name], let parsed = try? PhraseExpression.parse(body, rules: rules) else { return false }
                return saysAWord(parsed, depth: depth + 1)
            }
        }

        /// `text` with its lists and rules renamed (`{area}` -> `{ha.area:area}`), `{name}` limited
        /// to `domains` where given.
        mutating func rename(_ text: String, domains: String?) -> String {
            var out = ""
            var chars = text.makeIterator()
            while let c = chars.next() {
                guard c == "{" || c == "<" else { out.append(c); continue }
                let closing: Character = c == "{" ? "}" : ">"
                var name = ""
                while let n = chars.next(), n != closing { name.append(n) }
                if c == "{" {
                    let parts = name.split(separator: ":", maxSplits: 1).map(String.init)
                    let list = parts.first ?? name
                    let slot = parts.count > 1 ? parts[1] : list
                    let suffix = list == "name" ? domains.map { "@" + $0 } ?? "" : ""
                    out += "{\(Self.listPrefix)\(list)\(suffix):\(slot)}"
                } else {
                    out += "<\(ruleName(name, domains: domains))>"
                }
            }
            return out
        }

        /// The renamed rule, made (with its own references renamed) the first time it is used.
        mutating func ruleName(_ rule: String, domains: String?) -> String {
            let limited = domains != nil && nameRules.contains(rule)
            let name = Self.listPrefix + rule + (limited ? "@" + domains! : "")
            if made[name] == nil, let body = rules[rule] {
                made[name] = ""
                made[name] = rename(body, domains: limited ? domains : nil)
            }
            return name
        }

        /// Every rule, renamed (those only some templates reach included).
        mutating func renamedRules() -> [String: String] {
            for rule in rules.keys.sorted() { _ = ruleName(rule, domains: nil) }
            return made
        }
    }
}
