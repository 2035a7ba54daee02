import Foundation
import Yams

/// A set of sentence templates in Home Assistant's hassil file format:
///
/// ```yaml
/// language: en
/// intents:
///   HouseControl:
///     data:
///       - sentences: ["turn {action} [the] {device}"]
///         slots: {plural: "false"}
/// lists:
///   action: {values: ["on", {in: "switch off", out: "off"}]}
/// expansion_rules:
///   the: "[the]"
/// ```
///
/// `lists` may be extended by the lists built from the house (see `PhraseVocabulary`).
public struct PhraseSet: Sendable, Equatable {
    public var language: String
    /// Template groups in file order.
    public var groups: [PhraseTemplateGroup]
    public var lists: [String: PhraseList]
    public var expansionRules: [String: String]
    /// Words dropped from the text before matching ("please", "thank you"), as hassil's
    /// `skip_words`; never inside a name of the house.
    public var skipWords: [String]
    /// Words that call the house rather than say what to do ("ok house", "computer"), dropped
    /// only at the start of the text (`wake_words`, our own key).
    public var wakeWords: [String]
    /// What the community grammar answers in its language (`CommunityGrammar`); nil for our
    /// own files, which answer in our own words.
    public var responses: GrammarResponses? = nil

    public init(language: String = "en", groups: [PhraseTemplateGroup] = [], lists: [String: PhraseList] = [:],
                expansionRules: [String: String] = [:], skipWords: [String] = [], wakeWords: [String] = []) {
        self.language = language
        self.skipWords = skipWords
        self.wakeWords = wakeWords
        self.groups = groups
        self.lists = lists
        self.expansionRules = expansionRules
    }

    /// This set with `other`'s templates added and its lists and rules overriding ours by name
    /// (how a user's own file extends the default one).
    public func merging(_ other: PhraseSet) -> PhraseSet {
        var result = self
        result.groups += other.groups
        result.lists.merge(other.lists) { _, new in new }
        result.expansionRules.merge(other.expansionRules) { _, new in new }
        result.skipWords += other.skipWords.filter { !result.skipWords.contains($0) }
        result.wakeWords += other.wakeWords.filter { !result.wakeWords.contains($0) }
        result.responses = other.responses ?? responses
        return result
    }

    /// Loads a phrase file.
    public static func load(contentsOf url: URL) throws(PhraseError) -> PhraseSet {
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw .invalidFile(source: url.path, message: "cannot read the file: \(error.localizedDescription)")
        }
        return try parse(yaml: text, source: url.path)
    }

    /// Parses a phrase file's text. `source` names it in error messages.
    public static func parse(yaml: String, source: String = "phrases") throws(PhraseError) -> PhraseSet {
        let root: Yams.Node?
        do { root = try YAMLText.compose(yaml) } catch {
            throw .invalidFile(source: source, message: "not valid YAML: \(error)")
        }
        guard let root else { return PhraseSet() }
        var reader = Reader(source: source)
        return try reader.phraseSet(root)
    }

    private struct Reader {
        let source: String
        /// Every sentence template as written, checked once the file's rules are known (a part
        /// joined to a `<rule>` needs its text).
        var written: [Yams.Node] = []

        func fail(_ node: Yams.Node?, _ message: String) -> PhraseError {
            if let mark = node?.mark {
                return .invalidFile(source: "\(source):\(mark.line):\(mark.column)", message: message)
            }
            return .invalidFile(source: source, message: message)
        }

        func mapping(_ node: Yams.Node, _ what: String) throws(PhraseError) -> Yams.Node.Mapping {
            guard let m = node.mapping else { throw fail(node, "expected a mapping for \(what)") }
            return m
        }

        func text(_ node: Yams.Node, _ what: String) throws(PhraseError) -> String {
            guard let s = node.scalar?.string else { throw fail(node, "expected text for \(what)") }
            return s
        }

        mutating func phraseSet(_ root: Yams.Node) throws(PhraseError) -> PhraseSet {
            var set = PhraseSet()
            for (key, value) in try mapping(root, "the phrase file") {
                let name = try text(key, "a key")
                switch name {
                case "language": set.language = try text(value, "language")
                case "intents":
                    for (intentKey, intentValue) in try mapping(value, "intents") {
                        let intent = try text(intentKey, "an intent name")
                        let body = try mapping(intentValue, "intent \(intent)")
                        guard let data = body["data"] else { throw fail(intentValue, "intent \(intent) has no 'data' list") }
                        guard let blocks = data.sequence else { throw fail(data, "expected a list under \(intent).data") }
                        for block in blocks {
                            set.groups.append(try group(block, intent: intent))
                        }
                    }
                case "lists":
                    for (listKey, listValue) in try mapping(value, "lists") {
                        let listName = try text(listKey, "a list name")
                        set.lists[listName] = try list(listValue, name: listName)
                    }
                case "expansion_rules":
                    for (ruleKey, ruleValue) in try mapping(value, "expansion_rules") {
                        set.expansionRules[try text(ruleKey, "a rule name")] = try text(ruleValue, "an expansion rule")
                    }
                case "skip_words":
                    guard let seq = value.sequence else { throw fail(value, "expected a list of skip words") }
                    for w in seq { set.skipWords.append(try text(w, "a skip word")) }
                case "wake_words":
                    guard let seq = value.sequence else { throw fail(value, "expected a list of wake words") }
                    for w in seq { set.wakeWords.append(try text(w, "a wake word")) }
                case "responses", "requires_context", "excludes_context":
                    continue // hassil keys we accept and ignore
                default:
                    throw fail(key, "unknown key '\(name)' (expected language, intents, lists, expansion_rules, skip_words or wake_words)")
                }
            }
            for i in set.groups.indices { set.groups[i].language = set.language }
            for node in written {
                do throws(PhraseError) { _ = try PhraseExpression.parse(node.scalar?.string ?? "", rules: set.expansionRules) } catch {
                    throw fail(node, error.description)
                }
            }
            return set
        }

        mutating func group(_ node: Yams.Node, intent: String) throws(PhraseError) -> PhraseTemplateGroup {
            let body = try mapping(node, "a data entry of \(intent)")
            var group = PhraseTemplateGroup(intent: intent, sentences: [], slots: [:])
            for (key, value) in body {
                switch try text(key, "a key") {
                case "sentences":
                    guard let seq = value.sequence else { throw fail(value, "expected a list of sentences") }
                    for s in seq {
                        group.sentences.append(try text(s, "a sentence template"))
                        written.append(s)
                    }
                case "slots":
                    for (slotKey, slotValue) in try mapping(value, "slots") {
                        group.slots[try text(slotKey, "a slot name")] = try text(slotValue, "a slot value")
                    }
                case "requires_context", "excludes_context", "metadata", "response", "expansion_rules", "lists":
                    continue
                case let other:
                    throw fail(key, "unknown key '\(other)' in a data entry (expected sentences or slots)")
                }
            }
            if group.sentences.isEmpty { throw fail(node, "a data entry of \(intent) has no sentences") }
            return group
        }

        func list(_ node: Yams.Node, name: String) throws(PhraseError) -> PhraseList {
            let body = try mapping(node, "list \(name)")
            if let values = body["values"] {
                guard let seq = values.sequence else { throw fail(values, "expected a list of values for \(name)") }
                var result: [PhraseListValue] = []
                for v in seq {
                    if let s = v.scalar?.string {
                        result.append(PhraseListValue(spoken: s, value: s))
                    } else if let m = v.mapping {
                        guard let inNode = m["in"] else { throw fail(v, "a value of list \(name) needs 'in'") }
                        let spoken = try text(inNode, "'in'")
                        let out = try m["out"].map { (n: Yams.Node) throws(PhraseError) in try text(n, "'out'") } ?? spoken
                        result.append(PhraseListValue(spoken: spoken, value: out))
                    } else {
                        throw fail(v, "expected text or {in, out} in list \(name)")
                    }
                }
                return PhraseList(values: result)
            }
            if let range = body["range"] {
                let r = try mapping(range, "range of \(name)")
                guard let fromNode = r["from"], let toNode = r["to"],
                      let from = Int(try text(fromNode, "from")), let to = Int(try text(toNode, "to")), from <= to
                else { throw fail(range, "range of \(name) needs integer 'from' <= 'to'") }
                return PhraseList(values: (from...to).map { PhraseListValue(spoken: String($0), value: String($0)) })
            }
            throw fail(node, "list \(name) needs 'values' or 'range'")
        }
    }
}

/// One `data:` entry of an intent: sentence templates and the fixed slot values they imply.
public struct PhraseTemplateGroup: Sendable, Equatable {
    public var intent: String
    public var sentences: [String]
    /// hassil's per-template fixed slot values (`slots:`), added to every match.
    public var slots: [String: String]
    /// From the community grammar (`CommunityGrammar`): a template of it that does not compile
    /// in this house (a list it lacks) is left out, and a match of our own templates wins over it.
    public var fromGrammar: Bool
    /// The language of the file it came from (its `language:`): a match is answered in the
    /// grammar's words only when it was said in the grammar's language.
    public var language: String

    public init(intent: String, sentences: [String], slots: [String: String] = [:], fromGrammar: Bool = false, language: String = "en") {
        self.intent = intent
        self.sentences = sentences
        self.slots = slots
        self.fromGrammar = fromGrammar
        self.language = language
    }
}

/// A slot list: what may be said and the value it stands for.
public struct PhraseList: Sendable, Equatable {
    public var values: [PhraseListValue]

    public init(values: [PhraseListValue]) { self.values = values }

    private static let affixMark: Character = "\u{1}"

    /// The name of list `base` with text written against its values (`l'{area}`, `{area}s`):
    /// `base` itself when the text is no word of its own ("%", "°").
    public static func affixedName(_ base: String, prefix: String, suffix: String) -> String {
        let joins = { (text: String) in text.contains { $0 == "'" || $0 == "\u{2019}" } }
        if PhraseNormalizer.tokens(prefix).isEmpty && PhraseNormalizer.tokens(suffix).isEmpty && !joins(prefix) && !joins(suffix) {
            return base
        }
        return "\(prefix)\(affixMark)\(base)\(affixMark)\(suffix)"
    }

    /// The list a name stands for among `lists`: the list itself, or an affixed list made from
    /// its base (each value spoken with the prefix and suffix written against it).
    /// `base@a+b` is the union of `base@a` and `base@b` (a name list of some domains only; one
    /// the house lacks is empty).
    public static func named(_ name: String, in lists: [String: PhraseList]) -> PhraseList? {
        if let list = lists[name] { return list }
        let parts = name.split(separator: affixMark, omittingEmptySubsequences: false)
        if parts.count == 1, let at = name.firstIndex(of: "@"), lists[String(name[..<at])] != nil {
            let base = name[..<at]
            return PhraseList(values: name[name.index(after: at)...].split(separator: "+").flatMap { lists["\(base)@\($0)"]?.values ?? [] })
        }
        guard parts.count == 3, let base = named(String(parts[1]), in: lists) else { return nil }
        return PhraseList(values: base.values.map { PhraseListValue(spoken: parts[0] + $0.spoken + parts[2], value: $0.value) })
    }

    /// The base list of an affixed list's name (the name itself otherwise).
    public static func baseName(_ name: String) -> String {
        let parts = name.split(separator: affixMark, omittingEmptySubsequences: false)
        return parts.count == 3 ? String(parts[1]) : name
    }
}

/// One entry of a slot list: the words (`in`) and the slot value (`out`).
public struct PhraseListValue: Sendable, Equatable, Hashable {
    public var spoken: String
    public var value: String

    public init(spoken: String, value: String) {
        self.spoken = spoken
        self.value = value
    }
}
