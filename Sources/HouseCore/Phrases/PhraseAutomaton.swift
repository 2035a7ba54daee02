/// The compiled form of a phrase set: one token-level NFA for all templates (Thompson
/// construction, built backwards so nothing is patched), slot lists as token tries, and
/// precomputed epsilon closures. Matching simulates the set of live states position by position,
/// so time is bounded by (words x states), never exponential.
final class PhraseAutomaton: Sendable {
    typealias Kind = PhraseAutomatonBuilder.Kind
    typealias Template = PhraseAutomatonBuilder.Template
    typealias ListMatcher = PhraseAutomatonBuilder.ListMatcher

    let kinds: [Kind]
    let args: [Int32]
    let slotsOf: [Int32]
    let nexts: [Int32]
    let closureOffset: [Int32]
    let closureCount: [Int32]
    let closurePool: [Int32]
    /// Root word nodes by token id (dense: index = token id).
    let rootByToken: [[Int32]]
    let rootOther: [Int32]
    let vocabulary: [String: Int32]
    let tokenTable: PhraseTokenTable
    let slotNames: [String]
    let lists: [ListMatcher]
    let listNames: [String]
    let templates: [Template]
    let valueStrings: [String]
    /// Grammar templates left out (they need a list this house does not have).
    let skipped: [String]

    init(_ set: PhraseSet, extraLists: [String: PhraseList]) throws(PhraseError) {
        let b = try PhraseAutomatonBuilder(set, extraLists: extraLists)
        kinds = b.kinds
        args = b.args
        slotsOf = b.slotsOf
        nexts = b.nexts
        closureOffset = b.closureOffset
        closureCount = b.closureCount
        closurePool = b.closurePool
        var dense = [[Int32]](repeating: [], count: b.vocabulary.count)
        for (token, nodes) in b.rootByToken { dense[Int(token)] = nodes }
        rootByToken = dense
        rootOther = b.rootOther
        vocabulary = b.vocabulary
        tokenTable = PhraseTokenTable(b.vocabulary)
        slotNames = b.slotNames
        lists = b.lists
        listNames = b.listNames
        templates = b.templates
        valueStrings = b.valueStrings
        skipped = b.skipped
    }
}

/// Builds the automaton (mutable while compiling).
struct PhraseAutomatonBuilder {
    enum Kind: UInt8, Sendable { case split, word, list, accept }

    /// A compiled template: where it came from and the fixed slots it adds.
    struct Template: Sendable {
        var intent: String
        var sentence: String
        var fixedSlots: [PhraseSlot]
        /// From the community grammar: loses to a match of our own templates.
        var fromGrammar: Bool
        /// Its file's language.
        var language: String
    }

    /// A slot list: a trie of token ids, or a built-in parser.
    enum ListMatcher: Sendable {
        case trie(PhraseTrieBox)
        case number
        case duration
    }

    // Nodes, struct-of-arrays.
    var kinds: [Kind] = []
    /// word: token id; list: list index; accept: template index.
    var args: [Int32] = []
    /// list: slot index.
    var slotsOf: [Int32] = []
    /// word/list: the node after.
    var nexts: [Int32] = []
    /// split: the nodes it leads to.
    var edges: [[Int32]] = []
    /// Epsilon closure of each node: the non-split nodes reachable without consuming a word.
    var closureOffset: [Int32] = []
    var closureCount: [Int32] = []
    var closurePool: [Int32] = []
    var root: Int32 = 0
    /// The root closure's word nodes by the token they expect, and its other nodes: only these
    /// can start a match, so a sentence starts with a handful of threads, not every template.
    var rootByToken: [Int32: [Int32]] = [:]
    var rootOther: [Int32] = []

    var vocabulary: [String: Int32] = [:]
    var slotNames: [String] = []
    var slotIndex: [String: Int32] = [:]
    var listNames: [String] = []
    var lists: [ListMatcher] = []
    var templates: [Template] = []
    /// Grammar templates left out (they need a list this house does not have).
    var skipped: [String] = []
    /// List values by index (tries store indices, so matching moves no strings around).
    var valueStrings: [String] = []
    var valueIndex: [String: Int32] = [:]

    mutating func value(_ text: String) -> Int32 {
        if let i = valueIndex[text] { return i }
        let i = Int32(valueStrings.count)
        valueStrings.append(text)
        valueIndex[text] = i
        return i
    }

    init(_ set: PhraseSet, extraLists: [String: PhraseList]) throws(PhraseError) {
        var allLists = set.lists
        allLists.merge(extraLists) { _, new in new }
        var listIndex: [String: Int32] = [:]
        var rules: [String: PhraseExpression] = [:]
        for (name, text) in set.expansionRules {
            do throws(PhraseError) {
                rules[name] = try PhraseExpression.parse(text, rules: set.expansionRules)
            } catch {
                // A grammar's rule that cannot be read leaves out the templates that use it.
                guard name.hasPrefix(CommunityGrammar.rulePrefix) else { throw error }
            }
        }
        var starts: [Int32] = []
        for group in set.groups {
            for sentence in group.sentences {
                let compiled = templates.count
                do throws(PhraseError) {
                    let expr = try PhraseExpression.parse(sentence, rules: set.expansionRules)
                    let templateIndex = Int32(templates.count)
                    templates.append(Template(intent: group.intent, sentence: sentence,
                                               fixedSlots: group.slots.map { PhraseSlot(name: $0.key, value: $0.value) },
                                               fromGrammar: group.fromGrammar, language: group.language))
                    let accept = addNode(.accept, arg: templateIndex)
                    var expanding: [String] = []
                    let start = try compile(expr, next: accept, sentence: sentence, rules: rules, expanding: &expanding,
                                            lists: allLists, listIndex: &listIndex)
                    starts.append(start)
                } catch {
                    // A grammar template this house cannot say (a wildcard, a list it lacks)
                    // is left out; one of our own is an error.
                    guard group.fromGrammar else { throw error }
                    templates.removeSubrange(compiled...)
                    skipped.append(sentence)
                }
            }
        }
        root = addNode(.split)
        edges[Int(root)] = starts
        computeClosures()
        for i in lists.indices {
            if case .trie(let box) = lists[i] {
                var trie = box.trie
                trie.freeze(vocabularySize: vocabulary.count)
                lists[i] = .trie(PhraseTrieBox(trie))
            }
        }
        let offset = Int(closureOffset[Int(root)])
        for i in offset..<(offset + Int(closureCount[Int(root)])) {
            let node = closurePool[i]
            if kinds[Int(node)] == .word {
                rootByToken[args[Int(node)], default: []].append(node)
            } else {
                rootOther.append(node)
            }
        }
    }

    private mutating func addNode(_ kind: Kind, arg: Int32 = -1, slot: Int32 = -1, next: Int32 = -1) -> Int32 {
        kinds.append(kind)
        args.append(arg)
        slotsOf.append(slot)
        nexts.append(next)
        edges.append([])
        return Int32(kinds.count - 1)
    }

    mutating func token(_ word: String) -> Int32 {
        if let id = vocabulary[word] { return id }
        let id = Int32(vocabulary.count)
        vocabulary[word] = id
        return id
    }

    private mutating func compile(
        _ expr: PhraseExpression, next: Int32, sentence: String, rules: [String: PhraseExpression],
        expanding: inout [String], lists: [String: PhraseList], listIndex: inout [String: Int32]
    ) throws(PhraseError) -> Int32 {
        switch expr {
        case .words(let words):
            var node = next
            for w in words.reversed() { node = addNode(.word, arg: token(w), next: node) }
            return node
        case .sequence(let items):
            var node = next
            for item in items.reversed() {
                node = try compile(item, next: node, sentence: sentence, rules: rules, expanding: &expanding,
                                   lists: lists, listIndex: &listIndex)
            }
            return node
        case .alternatives(let alternatives):
            var targets: [Int32] = []
            for alt in alternatives {
                targets.append(try compile(alt, next: next, sentence: sentence, rules: rules, expanding: &expanding,
                                           lists: lists, listIndex: &listIndex))
            }
            let split = addNode(.split)
            edges[Int(split)] = targets
            return split
        case .optional(let inner):
            let body = try compile(inner, next: next, sentence: sentence, rules: rules, expanding: &expanding,
                                   lists: lists, listIndex: &listIndex)
            let split = addNode(.split)
            edges[Int(split)] = [body, next]
            return split
        case .list(let list, let slot):
            let index: Int32
            if let known = listIndex[list] {
                index = known
            } else {
                let matcher: ListMatcher
                if let values = PhraseList.named(list, in: lists) {
                    var trie = PhraseTrie()
                    for v in values.values {
                        let ids = PhraseNormalizer.tokens(v.spoken).map { token($0) }
                        trie.insert(ids, value: value(v.value))
                    }
                    matcher = .trie(PhraseTrieBox(trie))
                } else if list == "number" {
                    matcher = .number
                } else if list == "duration" {
                    matcher = .duration
                } else {
                    throw .unknownList(name: list, template: sentence)
                }
                index = Int32(self.lists.count)
                self.lists.append(matcher)
                listNames.append(list)
                listIndex[list] = index
            }
            let slotID: Int32
            if let s = slotIndex[slot] {
                slotID = s
            } else {
                slotID = Int32(slotNames.count)
                slotNames.append(slot)
                slotIndex[slot] = slotID
            }
            return addNode(.list, arg: index, slot: slotID, next: next)
        case .rule(let name):
            guard let body = rules[name] else { throw .unknownRule(name: name, template: sentence) }
            if expanding.contains(name) { throw .recursiveRule(name: name) }
            expanding.append(name)
            defer { expanding.removeLast() }
            return try compile(body, next: next, sentence: sentence, rules: rules, expanding: &expanding,
                               lists: lists, listIndex: &listIndex)
        }
    }

    private mutating func computeClosures() {
        let count = kinds.count
        closureOffset = Array(repeating: 0, count: count)
        closureCount = Array(repeating: 0, count: count)
        var seen = Array(repeating: -1, count: count)
        var stack: [Int32] = []
        for node in 0..<count {
            closureOffset[node] = Int32(closurePool.count)
            stack.removeAll(keepingCapacity: true)
            stack.append(Int32(node))
            while let n = stack.popLast() {
                if seen[Int(n)] == node { continue }
                seen[Int(n)] = node
                if kinds[Int(n)] == .split {
                    for e in edges[Int(n)].reversed() { stack.append(e) }
                } else {
                    closurePool.append(n)
                }
            }
            closureCount[node] = Int32(closurePool.count) - closureOffset[node]
        }
    }
}

/// An immutable shared trie: matching reads its storage in place, retaining nothing per lookup.
final class PhraseTrieBox: Sendable {
    let children: [[Int32: Int32]]
    let values: [Int32]
    let rootTable: [Int32]
    let trie: PhraseTrie

    init(_ trie: PhraseTrie) {
        self.trie = trie
        children = trie.children
        values = trie.values
        rootTable = trie.rootTable
    }

    /// Every entry that starts at `start`: (end, value index).
    func matches(_ ids: [Int32], from start: Int, into result: inout [(end: Int, value: Int32)]) {
        guard start < ids.count else { return }
        let first = ids[start]
        guard first >= 0, Int(first) < rootTable.count else { return }
        var node = rootTable[Int(first)]
        guard node >= 0 else { return }
        if values[Int(node)] >= 0 { result.append((start + 1, values[Int(node)])) }
        var i = start + 1
        while i < ids.count, let child = children[Int(node)][ids[i]] {
            node = child
            i += 1
            if values[Int(node)] >= 0 { result.append((i, values[Int(node)])) }
        }
    }
}

/// A token trie for one slot list.
struct PhraseTrie: Sendable {
    var children: [[Int32: Int32]] = [[:]]
    /// The root's children as a dense table by token id (-1: none); built by `freeze`.
    var rootTable: [Int32] = []
    /// Value index at each node, -1 when no entry ends there. The first value wins for a spoken form.
    var values: [Int32] = [-1]

    mutating func insert(_ tokens: [Int32], value: Int32) {
        guard !tokens.isEmpty else { return }
        var node: Int32 = 0
        for t in tokens {
            if let child = children[Int(node)][t] {
                node = child
            } else {
                let child = Int32(children.count)
                children.append([:])
                values.append(-1)
                children[Int(node)][t] = child
                node = child
            }
        }
        if values[Int(node)] < 0 { values[Int(node)] = value }
    }

    /// Builds the dense root table once the vocabulary is complete.
    mutating func freeze(vocabularySize: Int) {
        rootTable = Array(repeating: -1, count: vocabularySize)
        for (token, child) in children[0] { rootTable[Int(token)] = child }
    }
}
