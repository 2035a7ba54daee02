/// A parsed sentence template in Home Assistant's hassil syntax.
///
/// `(a|b)` alternatives, `[optional]` parts, `(a;b)` permutations, `{list}` and `{list:slot}` slots,
/// `<rule>` expansions and plain words (already normalised to tokens).
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

    /// Parses one hassil sentence template.
    /// With `normalizing: false` words are kept as written (split at spaces), for generating text.
    public static func parse(_ template: String, normalizing: Bool = true) throws(PhraseError) -> PhraseExpression {
        var parser = PhraseTemplateParser(template, normalizing: normalizing)
        return try parser.parseTemplate()
    }
}

/// Recursive-descent parser for hassil template syntax; produces `PhraseExpression`.
struct PhraseTemplateParser {
    private let source: String
    private let chars: [Character]
    private var index = 0
    private let normalizing: Bool

    init(_ source: String, normalizing: Bool = true) {
        self.source = source
        self.normalizing = normalizing
        self.chars = Array(source)
    }

    mutating func parseTemplate() throws(PhraseError) -> PhraseExpression {
        let expr = try parseAlternatives(closing: nil)
        if index < chars.count { throw fail("unexpected '\(chars[index])'") }
        return expr
    }

    private func fail(_ message: String) -> PhraseError {
        .syntax(template: source, offset: min(index, max(chars.count - 1, 0)), message: message)
    }

    /// alternatives := sequence (('|' | ';') sequence)*, up to `closing` (or the end).
    private mutating func parseAlternatives(closing: Character?) throws(PhraseError) -> PhraseExpression {
        var alternatives: [PhraseExpression] = []
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

    /// hassil `(a;b;c)`: every order of the parts.
    private static func permutations(_ parts: [PhraseExpression]) -> PhraseExpression {
        var result: [PhraseExpression] = []
        func permute(_ done: [PhraseExpression], _ rest: [PhraseExpression]) {
            if rest.isEmpty { result.append(.sequence(done)); return }
            for i in rest.indices {
                var r = rest
                let p = r.remove(at: i)
                permute(done + [p], r)
            }
        }
        permute([], parts)
        return .alternatives(result)
    }

    private mutating func parseSequence() throws(PhraseError) -> PhraseExpression {
        var items: [PhraseExpression] = []
        var text = ""
        func flush() {
            let tokens = normalizing ? PhraseNormalizer.tokens(text) : text.split(separator: " ").map(String.init)
            if !tokens.isEmpty { items.append(.words(tokens)) }
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
                let parts = name.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard let list = parts.first, !list.isEmpty else { throw fail("empty list name") }
                let slot = parts.count > 1 && !parts[1].isEmpty ? parts[1] : list
                items.append(.list(list: list, slot: slot))
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
        return name.trimmingCharacters(in: .whitespaces)
    }
}
