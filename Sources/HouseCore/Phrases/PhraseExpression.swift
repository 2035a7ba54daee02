/// A parsed sentence template in Home Assistant's hassil syntax.
///
/// `(a|b)` alternatives, `[optional]` parts, `(a;b)` permutations, `{list}` and `{list:slot}` slots,
/// `<rule>` expansions and plain words (already normalised to tokens). Parts written without a
/// space between them join into one word, as hassil reads them character by character:
/// `fan[s]` is "fan" or "fans", `(Ziel|Soll)temperatur` two words, `l'{area}` the area's names
/// with "l'" before them (an affixed list, see `PhraseList.affixedName`).
public indirect enum PhraseExpression: Sendable, Equatable {
    /// Literal words, normalised.
    case words([String])
    /// Parts one after the other.
    case sequence([PhraseExpression])
    /// Exactly one of these.
    case alternatives([PhraseExpression])
    /// This or nothing.
    case optional(PhraseExpression)
    /// A value from the list `list`, captured into slot `slot`.
    case list(list: String, slot: String)
    /// An expansion rule by name.
    case rule(String)

    /// Parses one hassil sentence template. `rules` (name to template) are needed where a rule
    /// is written against another part without a space (`<rule>s`, `[<the> ]{area}`): its
    /// spellings decide where the words join; elsewhere `.rule` is kept.
    /// With `normalizing: false` words are kept as written (split at spaces), for generating text.
    public static func parse(_ template: String, normalizing: Bool = true, rules: [String: String] = [:]) throws(PhraseError) -> PhraseExpression {
        var parser = PhraseTemplateParser(template, normalizing: normalizing, rules: rules)
        return try parser.parseTemplate()
    }
}

/// Recursive-descent parser for hassil template syntax; produces `PhraseExpression`.
struct PhraseTemplateParser {
    /// The template as written: text keeps its spaces until parts are known to be words.
    indirect enum Raw {
        case text(String)
        case sequence([Raw])
        case alternatives([Raw])
        case optional(Raw)
        case list(String, String)
        case rule(String)
    }

    /// A piece of a joined part's expansion: text as written, or a list.
    enum Piece: Equatable {
        case text(String)
        case list(String, String)
    }

    /// The most ways one joined part may be spelled before the template is refused.
    static let maxJoinedExpansions = 4096

    private let source: String
    private let chars: [Character]
    private var index = 0
    private let normalizing: Bool
    private let rules: [String: String]

    init(_ source: String, normalizing: Bool = true, rules: [String: String] = [:]) {
        self.source = source
        self.normalizing = normalizing
        self.rules = rules
        self.chars = Array(source)
    }

    mutating func parseTemplate() throws(PhraseError) -> PhraseExpression {
        let raw = try parseAlternatives(closing: nil)
        if index < chars.count { throw fail("unexpected '\(chars[index])'") }
        return try expression(raw)
    }

    private func fail(_ message: String) -> PhraseError {
        .syntax(template: source, offset: min(index, max(chars.count - 1, 0)), message: message)
    }

    // MARK: Raw parsing

    /// alternatives := sequence (('|' | ';') sequence)*, up to `closing` (or the end).
    private mutating func parseAlternatives(closing: Character?) throws(PhraseError) -> Raw {
        var alternatives: [Raw] = []
        var permutation = false
        var bar = false
        var current = try parseSequence()
        while index < chars.count {
            let c = chars[index]
            if c == "|" || c == ";" {
                if c == ";" { permutation = true } else { bar = true }
                if permutation && bar { throw fail("cannot mix '|' and ';' in one group") }
                index += 1
                alternatives.append(current)
                current = try parseSequence()
                continue
            }
            if let closing, c == closing { break }
            throw fail("unexpected '\(c)'")
        }
        if closing != nil && index >= chars.count { throw fail("missing '\(closing!)'") }
        alternatives.append(current)
        if alternatives.count == 1 { return alternatives[0] }
        if permutation { return Self.permutations(alternatives) }
        return .alternatives(alternatives)
    }

    /// hassil `(a;b;c)`: every order of the parts, a space between them.
    private static func permutations(_ parts: [Raw]) -> Raw {
        var result: [Raw] = []
        func permute(_ done: [Raw], _ rest: [Raw]) {
            if rest.isEmpty { result.append(.sequence(done)); return }
            for i in rest.indices {
                var r = rest
                let p = r.remove(at: i)
                permute(done.isEmpty ? [p] : done + [.text(" "), p], r)
            }
        }
        permute([], parts)
        return .alternatives(result)
    }

    private mutating func parseSequence() throws(PhraseError) -> Raw {
        var items: [Raw] = []
        var text = ""
        func flush() {
            if !text.isEmpty { items.append(.text(text)) }
            text = ""
        }
        while index < chars.count {
            let c = chars[index]
            switch c {
            case "(":
                flush(); index += 1
                let inner = try parseAlternatives(closing: ")")
                index += 1
                items.append(inner)
            case "[":
                flush(); index += 1
                let inner = try parseAlternatives(closing: "]")
                index += 1
                items.append(.optional(inner))
            case "{":
                flush(); index += 1
                let name = try readName(until: "}")
                let parts = name.split(separator: ":", maxSplits: 1).map { String($0).trimmedWhitespace }
                guard let list = parts.first, !list.isEmpty else { throw fail("empty list name") }
                let slot = parts.count > 1 && !parts[1].isEmpty ? parts[1] : list
                items.append(.list(list, slot))
            case "<":
                flush(); index += 1
                let name = try readName(until: ">")
                guard !name.isEmpty else { throw fail("empty rule name") }
                items.append(.rule(name))
            case "|", ";", ")", "]":
                flush()
                return items.count == 1 ? items[0] : .sequence(items)
            case "}", ">":
                throw fail("unexpected '\(c)'")
            default:
                text.append(c)
                index += 1
            }
        }
        flush()
        return items.count == 1 ? items[0] : .sequence(items)
    }

    private mutating func readName(until closing: Character) throws(PhraseError) -> String {
        var name = ""
        while index < chars.count, chars[index] != closing {
            if "()[]{}<>|".contains(chars[index]) { throw fail("unexpected '\(chars[index])' in a name") }
            name.append(chars[index])
            index += 1
        }
        guard index < chars.count else { throw fail("missing '\(closing)'") }
        index += 1
        return name.trimmedWhitespace
    }

    // MARK: From raw parts to words

    private func words(_ text: String) -> [String] {
        normalizing ? PhraseNormalizer.tokens(text) : text.split(whereSeparator: \.isWhitespace).map(String.init)
    }

    private func expression(_ raw: Raw) throws(PhraseError) -> PhraseExpression {
        switch raw {
        case .text(let text):
            let w = words(text)
            return w.isEmpty ? .sequence([]) : .words(w)
        case .alternatives(let alternatives):
            var result: [PhraseExpression] = []
            for a in alternatives { result.append(try expression(a)) }
            return .alternatives(result)
        case .optional(let inner):
            return .optional(try expression(inner))
        case .list(let list, let slot):
            return .list(list: list, slot: slot)
        case .rule(let name):
            return .rule(name)
        case .sequence(let items):
            // Split at the spaces of the text between parts: what is left between two spaces is
            // one word, joined from its parts when it has several.
            var groups: [[Raw]] = [[]]
            for item in items {
                guard case .text(let text) = item else {
                    groups[groups.count - 1].append(item)
                    continue
                }
                var word = ""
                for c in text {
                    if c.isWhitespace {
                        if !word.isEmpty { groups[groups.count - 1].append(.text(word)); word = "" }
                        if !groups[groups.count - 1].isEmpty { groups.append([]) }
                    } else {
                        word.append(c)
                    }
                }
                if !word.isEmpty { groups[groups.count - 1].append(.text(word)) }
            }
            var parts: [PhraseExpression] = []
            for group in groups where !group.isEmpty {
                if group.count == 1 {
                    parts.append(try expression(group[0]))
                } else {
                    var spelled: [[[Piece]]] = []
                    for part in group {
                        var expanding: [String] = []
                        spelled.append(try spellings(part, expanding: &expanding))
                    }
                    for segment in Self.separated(spelled) {
                        parts.append(segment.count == 1 ? try expression(group[segment.lowerBound]) : try joined(spelled[segment]))
                    }
                }
            }
            // Adjacent words stay one `.words` part.
            var merged: [PhraseExpression] = []
            for part in parts {
                if case .words(let w) = part, case .words(let previous)? = merged.last {
                    merged[merged.count - 1] = .words(previous + w)
                } else {
                    merged.append(part)
                }
            }
            return merged.count == 1 ? merged[0] : .sequence(merged)
        }
    }

    /// Parts written together whose spellings still leave a space between some of them
    /// (`[den ]{area}[ auf]`): split there, so that only what really joins is spelled out.
    /// `spelled`: each part's spellings; the answer: the parts of each piece, in order.
    private static func separated(_ spelled: [[[Piece]]]) -> [Range<Int>] {
        struct Edges { var empty: Bool; var startsWithSpace: Bool; var endsWithSpace: Bool }
        var edges: [Edges] = []
        for spellings in spelled {
            let texts = spellings.map { pieces in
                pieces.map { if case .text(let t) = $0 { t } else { "x" } }.joined()
            }
            let said = texts.filter { !$0.allSatisfy(\.isWhitespace) }
            edges.append(Edges(empty: said.count < texts.count,
                               startsWithSpace: said.allSatisfy { $0.first!.isWhitespace },
                               endsWithSpace: said.allSatisfy { $0.last!.isWhitespace }))
        }
        // A cut between two parts is safe when, however they are spelled, a space is on one
        // side of it: before it (looking left past parts that may be empty) or after it.
        let n = spelled.count
        var spaceBefore = Array(repeating: true, count: n + 1)
        for b in 1...n {
            let left = edges[b - 1]
            spaceBefore[b] = left.endsWithSpace && (!left.empty || spaceBefore[b - 1])
        }
        var spaceAfter = Array(repeating: true, count: n + 1)
        for b in stride(from: n - 1, through: 0, by: -1) {
            let right = edges[b]
            spaceAfter[b] = right.startsWithSpace && (!right.empty || spaceAfter[b + 1])
        }
        var segments: [Range<Int>] = []
        var start = 0
        for i in 1..<n where spaceBefore[i] || spaceAfter[i] {
            segments.append(start..<i)
            start = i
        }
        return segments + [start..<n]
    }

    /// Parts written without a space between them, as the alternatives of how they are spelled.
    /// `spelled`: each part's spellings.
    private func joined(_ spelled: ArraySlice<[[Piece]]>) throws(PhraseError) -> PhraseExpression {
        var expansions: [[Piece]] = [[]]
        for options in spelled {
            var next: [[Piece]] = []
            for e in expansions {
                for o in options { next.append(Self.concatenate(e, o)) }
            }
            guard next.count <= Self.maxJoinedExpansions else { throw fail("too many ways to spell the parts written together") }
            expansions = next
        }
        var alternatives: [PhraseExpression] = []
        for e in expansions {
            let expr = try expression(spelled: e)
            if !alternatives.contains(expr) { alternatives.append(expr) }
        }
        return alternatives.count == 1 ? alternatives[0] : .alternatives(alternatives)
    }

    private static func concatenate(_ a: [Piece], _ b: [Piece]) -> [Piece] {
        guard case .text(let tail)? = a.last, case .text(let head)? = b.first else { return a + b }
        return a.dropLast() + [.text(tail + head)] + b.dropFirst()
    }

    /// Every spelling of a raw part, as text and lists.
    private func spellings(_ raw: Raw, expanding: inout [String]) throws(PhraseError) -> [[Piece]] {
        switch raw {
        case .text(let text): return [[.text(text)]]
        case .list(let list, let slot): return [[.list(list, slot)]]
        case .optional(let inner): return [[]] + (try spellings(inner, expanding: &expanding))
        case .alternatives(let alternatives):
            var result: [[Piece]] = []
            for a in alternatives { result += try spellings(a, expanding: &expanding) }
            return result
        case .sequence(let items):
            var result: [[Piece]] = [[]]
            for item in items {
                let options = try spellings(item, expanding: &expanding)
                var next: [[Piece]] = []
                for r in result { for o in options { next.append(Self.concatenate(r, o)) } }
                guard next.count <= Self.maxJoinedExpansions else { throw fail("too many ways to spell the parts written together") }
                result = next
            }
            return result
        case .rule(let name):
            guard let text = rules[name] else { throw .unknownRule(name: name, template: source) }
            if expanding.contains(name) { throw .recursiveRule(name: name) }
            var parser = PhraseTemplateParser(text, normalizing: normalizing, rules: rules)
            let body = try parser.parseAlternatives(closing: nil)
            expanding.append(name)
            defer { expanding.removeLast() }
            return try spellings(body, expanding: &expanding)
        }
    }

    /// One spelling as words and lists: a list with text joined to it is an affixed list.
    private func expression(spelled pieces: [Piece]) throws(PhraseError) -> PhraseExpression {
        var parts: [PhraseExpression] = []
        var text = ""
        var list: (name: String, slot: String, prefix: String)? = nil
        func endWord() throws(PhraseError) {
            if let l = list {
                parts.append(.list(list: PhraseList.affixedName(l.name, prefix: l.prefix, suffix: text), slot: l.slot))
            } else if !text.isEmpty {
                parts.append(.words(words(text)))
            }
            list = nil
            text = ""
        }
        for piece in pieces {
            switch piece {
            case .list(let name, let slot):
                if list != nil { throw fail("two lists written together") }
                list = (name, slot, text)
                text = ""
            case .text(let t):
                for c in t {
                    if c.isWhitespace { try endWord() } else { text.append(c) }
                }
            }
        }
        try endWord()
        let nonEmpty = parts.filter { $0 != .words([]) }
        return nonEmpty.count == 1 ? nonEmpty[0] : .sequence(nonEmpty)
    }
}
