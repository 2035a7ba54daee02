/// Generates example sentences from templates: a few systematic expansions of each template
/// (for "closest phrase" suggestions and tests), or random ones (for the benchmark corpus).
public struct PhraseSampler: Sendable {
    let rules: [String: PhraseExpression]
    /// The rules with words as written, for `random`.
    let rawRules: [String: PhraseExpression]
    /// The rules as written (parts joined to a rule need its text).
    let ruleTexts: [String: String]
    let lists: [String: PhraseList]

    /// Example words for the built-in lists.
    static let builtInSamples: [String: [String]] = [
        "number": ["two", "3", "twelve", "twenty five", "48"],
        "duration": ["two hours", "90 minutes", "1h30", "an hour", "half an hour", "an hour and a half", "45 minutes"],
    ]

    public init(phraseSet: PhraseSet, lists: [String: PhraseList]) throws(PhraseError) {
        var rules: [String: PhraseExpression] = [:]
        var rawRules: [String: PhraseExpression] = [:]
        for (name, text) in phraseSet.expansionRules {
            rules[name] = try? PhraseExpression.parse(text, rules: phraseSet.expansionRules)
            rawRules[name] = try? PhraseExpression.parse(text, normalizing: false, rules: phraseSet.expansionRules)
        }
        self.rules = rules
        self.rawRules = rawRules
        self.ruleTexts = phraseSet.expansionRules
        self.lists = lists
    }

    /// A list's spoken values; none for a list the house leaves empty (no floors), so that a
    /// template's alternatives through it give no examples.
    private func samples(of list: String) -> [String] {
        let named = PhraseList.named(list, in: lists)
        if let values = named?.values, !values.isEmpty { return values.map(\.spoken) }
        if named != nil { return [] }
        return Self.builtInSamples[list] ?? [list]
    }

    /// True when `expr` can be said in this house: every list it needs has a value.
    private func isSayable(_ expr: PhraseExpression, depth: Int = 0) -> Bool {
        guard depth < 32 else { return true }
        switch expr {
        case .words, .optional: return true
        case .list(let list, _): return !samples(of: list).isEmpty
        case .rule(let name): return rawRules[name].map { isSayable($0, depth: depth + 1) } ?? true
        case .alternatives(let alts): return alts.contains { isSayable($0, depth: depth + 1) }
        case .sequence(let items): return items.allSatisfy { isSayable($0, depth: depth + 1) }
        }
    }

    /// Up to `limit` expansions of a template, lists filled with their first value, as normalised words.
    public func expansions(of sentence: String, limit: Int) -> [[String]] {
        guard let expr = try? PhraseExpression.parse(sentence, rules: ruleTexts) else { return [] }
        return expand(expr, limit: limit, depth: 0)
    }

    private func expand(_ expr: PhraseExpression, limit: Int, depth: Int) -> [[String]] {
        guard depth < 32 else { return [[]] }
        switch expr {
        case .words(let w): return [w]
        case .list(let list, _): return samples(of: list).first.map { [PhraseNormalizer.tokens($0)] } ?? []
        case .rule(let name): return rules[name].map { expand($0, limit: limit, depth: depth + 1) } ?? [[]]
        case .optional(let inner): return Array(([[]] + expand(inner, limit: limit, depth: depth + 1)).prefix(limit))
        case .alternatives(let alts):
            var out: [[String]] = []
            for alt in alts where out.count < limit { out += expand(alt, limit: limit - out.count, depth: depth + 1) }
            return out
        case .sequence(let items):
            var out: [[String]] = [[]]
            for item in items {
                let parts = expand(item, limit: limit, depth: depth + 1)
                var next: [[String]] = []
                outer: for prefix in out {
                    for part in parts {
                        next.append(prefix + part)
                        if next.count >= limit { break outer }
                    }
                }
                out = next
            }
            return out
        }
    }

    /// Up to `limit` expansions of a template with slots left as placeholders (the template's
    /// skeletons), words as written in the template.
    func skeletons(of sentence: String, limit: Int) -> [[PhraseSuggester.Part]] {
        guard let expr = try? PhraseExpression.parse(sentence, normalizing: false, rules: ruleTexts) else { return [] }
        return skeleton(expr, limit: limit, depth: 0)
    }

    private func skeleton(_ expr: PhraseExpression, limit: Int, depth: Int) -> [[PhraseSuggester.Part]] {
        guard depth < 32 else { return [[]] }
        switch expr {
        case .words(let words):
            var parts: [PhraseSuggester.Part] = []
            for word in words {
                for (i, norm) in PhraseNormalizer.tokens(word).enumerated() {
                    parts.append(.word(display: i == 0 ? word : "", norm: norm))
                }
            }
            return [parts]
        case .list(let list, _): return samples(of: list).isEmpty ? [] : [[.slot(list: list)]]
        case .rule(let name): return rawRules[name].map { skeleton($0, limit: limit, depth: depth + 1) } ?? [[]]
        case .optional(let inner): return Array(([[]] + skeleton(inner, limit: limit, depth: depth + 1)).prefix(limit))
        case .alternatives(let alts):
            var out: [[PhraseSuggester.Part]] = []
            for alt in alts where out.count < limit { out += skeleton(alt, limit: limit - out.count, depth: depth + 1) }
            return out
        case .sequence(let items):
            var out: [[PhraseSuggester.Part]] = [[]]
            for item in items {
                let parts = skeleton(item, limit: limit, depth: depth + 1)
                var next: [[PhraseSuggester.Part]] = []
                outer: for prefix in out {
                    for part in parts {
                        next.append(prefix + part)
                        if next.count >= limit { break outer }
                    }
                }
                out = next
            }
            return out
        }
    }

    /// A sample spoken value for a list (for filling placeholders).
    func sample(of list: String) -> String { samples(of: list).first ?? list }

    /// One random expansion of a template: each alternative, optional part and list value chosen
    /// with `random`, as text.
    /// "" when the template cannot be said in this house (it needs a list the house leaves empty).
    public func random(of sentence: String, using random: inout some RandomNumberGenerator) -> String {
        guard let expr = try? PhraseExpression.parse(sentence, normalizing: false, rules: ruleTexts), isSayable(expr) else { return "" }
        var words: [String] = []
        walk(expr, into: &words, random: &random, depth: 0)
        return words.joined(separator: " ")
    }

    private func walk(_ expr: PhraseExpression, into words: inout [String], random: inout some RandomNumberGenerator, depth: Int) {
        guard depth < 32 else { return }
        switch expr {
        case .words(let w): words += w
        case .list(let list, _): if let value = samples(of: list).randomElement(using: &random) { words.append(value) }
        case .rule(let name): if let r = rawRules[name] { walk(r, into: &words, random: &random, depth: depth + 1) }
        case .optional(let inner): if Bool.random(using: &random) { walk(inner, into: &words, random: &random, depth: depth + 1) }
        case .alternatives(let alts):
            let sayable = alts.filter { isSayable($0, depth: depth + 1) }
            if let alt = (sayable.isEmpty ? alts : sayable).randomElement(using: &random) {
                walk(alt, into: &words, random: &random, depth: depth + 1)
            }
        case .sequence(let items): for item in items { walk(item, into: &words, random: &random, depth: depth + 1) }
        }
    }
}
