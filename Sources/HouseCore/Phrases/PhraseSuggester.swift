/// Finds the known phrases closest to text that matched nothing.
///
/// Compares the words typed with template skeletons (the templates' expansions with slots left
/// open) by word edit distance, where words the house knows (a device, a room, a duration) count
/// as a match for the slot they could fill. The suggestions keep the user's own names:
/// "turn of the kettle" suggests "turn on the kettle".
///
/// A suggestion must be about what was said: when the text names something of the house (a
/// device, a room, a floor, a mode, a routine), only phrases using one of those names; otherwise
/// only phrases starting with the same verb, or a question with the same two first words ("how
/// much"); with none of these, none (a question about the weather gets no house phrases). And it
/// must make sense in the house (`accept`).
struct PhraseSuggester: Sendable {
    /// One element of a skeleton: a word of the template, or an open slot.
    enum Part: Sendable, Hashable {
        /// `display` as written in the template ("we're"; empty for the later tokens of one word).
        case word(display: String, norm: String)
        case slot(list: String)
    }

    /// One element of what was typed: a plain word, or words that fill some lists.
    enum Typed {
        case word(String)
        case span(text: String, lists: Set<String>)
    }

    let skeletons: [[Part]]
    let samples: [String: String]
    /// First words of the templates that ask the house to do something ("turn", "open", "set");
    /// question words ("what's", "is") are not verbs to keep.
    let verbs: Set<String>

    init(automaton: PhraseAutomaton, sampler: PhraseSampler, listNames: [String], limitPerTemplate: Int = 24) {
        var skeletons: [[Part]] = []
        var seen: Set<[Part]> = []
        var verbs: Set<String> = []
        // Our own templates only: the community grammar's thousands of spellings would make
        // every "I don't understand" slow, and say nothing ours do not.
        for template in automaton.templates where !template.fromGrammar {
            for skeleton in sampler.skeletons(of: template.sentence, limit: limitPerTemplate) where !skeleton.isEmpty {
                if template.intent != "QueryHouseStatus", case .word(_, let norm)? = skeleton.first { verbs.insert(norm) }
                if seen.insert(skeleton).inserted { skeletons.append(skeleton) }
            }
        }
        self.skeletons = skeletons
        self.verbs = verbs
        var samples: [String: String] = [:]
        for name in listNames { samples[name] = sampler.sample(of: name) }
        self.samples = samples
    }

    /// Lists whose words name something of the house: a suggestion keeps one of them.
    static let anchorLists: Set<String> = ["device", "devices", "room", "floor", "mode", "routine"]

    /// How many of the closest skeletons are looked at before giving up on finding sensible ones.
    static let maxChecked = 60

    /// Up to `limit` suggestions, closest first, each accepted by `accept`.
    func suggest(words: [String], automaton: PhraseAutomaton, limit: Int, accept: (String) -> Bool = { _ in true }) -> [String] {
        let typed = Self.typed(words, automaton: automaton)
        let anchors = typed.indices.filter { k in
            if case .span(_, let lists) = typed[k] { return !lists.isDisjoint(with: Self.anchorLists) }
            return false
        }
        let verb: String? = {
            guard case .word(let first)? = typed.first, verbs.contains(first) else { return nil }
            return first
        }()
        // A question's first two words ("how much", "what mode") hold it to its kind.
        let lead: [String]? = {
            guard typed.count >= 2, case .word(let a) = typed[0], case .word(let b) = typed[1],
                  !["the", "a", "an", "my", "it", "there", "is", "are"].contains(b) else { return nil }
            return [a, b]
        }()
        func leads(_ skeleton: [Part]) -> Bool {
            guard let lead, skeleton.count >= 2, case .word(_, let a) = skeleton[0], case .word(_, let b) = skeleton[1] else { return false }
            return [a, b] == lead
        }
        // Nothing typed: examples; nothing of the house, no known verb: nothing to offer.
        guard typed.isEmpty || !anchors.isEmpty || verb != nil || lead != nil else { return [] }
        var scored: [(distance: Int, text: String)] = []
        scored.reserveCapacity(skeletons.count)
        for skeleton in skeletons {
            let (text, used) = render(skeleton, typed: typed)
            if typed.isEmpty {
                // any example
            } else if !anchors.isEmpty {
                guard anchors.contains(where: used.contains) else { continue }
            } else if verb != nil {
                guard case .word(_, let norm)? = skeleton.first, norm == verb else { continue }
            } else if !leads(skeleton) {
                continue
            }
            scored.append((typed.isEmpty ? 0 : Self.distance(typed, skeleton), text))
        }
        scored.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.text.count < $1.text.count }
        var result: [String] = []
        var checked = 0
        for s in scored where !result.contains(s.text) {
            checked += 1
            if checked > Self.maxChecked { break }
            guard accept(s.text) else { continue }
            result.append(s.text)
            if result.count == limit { break }
        }
        return result
    }

    /// The typed words with the longest known names, durations and numbers grouped into spans.
    static func typed(_ words: [String], automaton: PhraseAutomaton) -> [Typed] {
        let ids = words.map(automaton.tokenTable.id)
        var result: [Typed] = []
        var hits: [(end: Int, value: Int32)] = []
        var i = 0
        while i < words.count {
            var best = i
            var lists: Set<String> = []
            func offer(_ end: Int, _ list: String) {
                if end > best { best = end; lists = [list] } else if end == best && end > i { lists.insert(list) }
            }
            for (index, matcher) in automaton.lists.enumerated() {
                let name = automaton.listNames[index]
                switch matcher {
                case .trie(let box):
                    hits.removeAll(keepingCapacity: true)
                    box.matches(ids, from: i, into: &hits)
                    for h in hits { offer(h.end, name) }
                case .number:
                    for h in PhraseSpokenNumbers.numbers(words, from: i) { offer(h.end, name) }
                case .duration:
                    for h in PhraseSpokenNumbers.durations(words, from: i) { offer(h.end, name) }
                }
            }
            if best > i {
                result.append(.span(text: words[i..<best].joined(separator: " "), lists: lists))
                i = best
            } else {
                result.append(.word(words[i]))
                i += 1
            }
        }
        return result
    }

    /// Word edit distance; a span costs nothing against a slot it can fill.
    static func distance(_ a: [Typed], _ b: [Part]) -> Int {
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = Array(repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost: Int
                switch (a[i - 1], b[j - 1]) {
                case (.word(let w), .word(_, let norm)): cost = w == norm ? 0 : 1
                case (.span(let text, _), .word(_, let norm)): cost = text == norm ? 0 : 1
                case (.span(_, let lists), .slot(let list)): cost = lists.contains(list) ? 0 : 1
                case (.word, .slot): cost = 1
                }
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// The skeleton as text, its slots filled with what was typed where it fits, or a sample;
    /// and which typed elements it used.
    func render(_ skeleton: [Part], typed: [Typed]) -> (text: String, used: Set<Int>) {
        var used = Set<Int>()
        var words: [String] = []
        for part in skeleton {
            switch part {
            case .word(let display, _):
                if !display.isEmpty { words.append(display) }
            case .slot(let list):
                var filled: String? = nil
                for (k, t) in typed.enumerated() where !used.contains(k) {
                    if case .span(let text, let lists) = t, lists.contains(list) {
                        filled = text
                        used.insert(k)
                        break
                    }
                }
                words.append(filled ?? samples[list] ?? list)
            }
        }
        return (words.joined(separator: " "), used)
    }
}
