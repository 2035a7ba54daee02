/// Turns what people type ("bedroom lights off", "we're out for two hours") into ranked, typed
/// house intents.
///
/// Compile once from a `PhraseSet` (hassil templates) and a house (which fills the `room`,
/// `device`, `devices`, `mode` and `routine` lists), then call `interpret(_:)` as often as needed,
/// from any thread. Matching is a set-of-states simulation over one token-level automaton:
/// linear in the words typed, whatever the templates.
public struct PhraseMatcher: Sendable {
    /// The templates this matcher was compiled from.
    public let phraseSet: PhraseSet
    /// All slot lists, the phrase file's and the house's (built-ins `number` and `duration` excluded).
    public let lists: [String: PhraseList]
    let automaton: PhraseAutomaton
    let suggester: LazyPhraseSuggester
    /// Skip words as token sequences, longest first.
    let skipWords: [[String]]
    /// Wake words as token sequences, longest first.
    let wakeWords: [[String]]
    /// The first words of the skip and wake words: text without any is matched as typed.
    let firstWords: Set<String>
    /// The house's names (rooms, devices, modes, routines) as token sequences by first word,
    /// longest first: a skip or wake word inside one stays ("good morning house", "just lamp").
    let names: [String: [[String]]]
    /// The house the lists came from, when compiled from one: suggestions are checked against it.
    let house: HouseConfiguration?
    /// The words that join commands: "and", and that of each language the templates are in ("und", "et").
    let conjunctions: Set<String>
    /// Words typed without umlauts and compounds of the house's names, read as the templates
    /// spell them; nil without a house.
    let spelling: PhraseSpelling?
    /// "and" in the languages whose grammar has been tried with housectl.
    static let and: [String: String] = ["de": "und", "fr": "et", "nl": "en", "es": "y", "it": "e", "pt": "e"]

    /// The most words a single command may have; longer text is refused rather than matched slowly.
    public static let maxWords = 200
    /// Live threads kept per automaton state and position (only counted when a position has many
    /// threads); bounds the ways ambiguous lists can split the same words.
    static let maxThreadsPerState = 16

    /// Compiles `phraseSet` with the house's slot lists.
    public init(phraseSet: PhraseSet, house: HouseConfiguration) throws(PhraseError) {
        try self.init(phraseSet: phraseSet, lists: PhraseVocabulary.lists(for: house), house: house)
    }

    /// Compiles `phraseSet` with extra slot lists (overriding the file's by name).
    public init(phraseSet: PhraseSet, lists extra: [String: PhraseList]) throws(PhraseError) {
        try self.init(phraseSet: phraseSet, lists: extra, house: nil)
    }

    private init(phraseSet: PhraseSet, lists extra: [String: PhraseList], house: HouseConfiguration?) throws(PhraseError) {
        self.phraseSet = phraseSet
        self.house = house
        var all = phraseSet.lists
        all.merge(extra) { _, new in new }
        self.lists = all
        self.automaton = try PhraseAutomaton(phraseSet, extraLists: extra)
        let sampler = try PhraseSampler(phraseSet: phraseSet, lists: all)
        self.suggester = LazyPhraseSuggester(automaton: automaton, sampler: sampler)
        func sequences(_ words: [String]) -> [[String]] {
            words.map(PhraseNormalizer.tokens).filter { !$0.isEmpty }.sorted { $0.count > $1.count }
        }
        self.skipWords = sequences(phraseSet.skipWords)
        self.wakeWords = sequences(phraseSet.wakeWords)
        self.firstWords = Set((skipWords + wakeWords).map { $0[0] })
        self.conjunctions = Set(["and"] + phraseSet.groups.compactMap { Self.and[$0.language] })
        var names: [String: [[String]]] = [:]
        for name in Set(extra.values.flatMap { $0.values.map(\.spoken) }) {
            let tokens = PhraseNormalizer.tokens(name)
            if let first = tokens.first { names[first, default: []].append(tokens) }
        }
        self.names = names.mapValues { $0.sorted { $0.count > $1.count } }
        let heads = ["room", "floor", "mode"].flatMap { extra[$0]?.values.map(\.spoken) ?? [] }.filter { !$0.contains(" ") }
        self.spelling = house == nil ? nil : PhraseSpelling(vocabulary: automaton.vocabulary.keys, heads: heads)
    }

    /// The normalised words of `text` without a leading wake word and without skip words; a
    /// name of the house is kept whole whatever words it has.
    func words(_ text: String) -> [String] {
        let tokens = PhraseNormalizer.tokens(text)
        guard tokens.contains(where: firstWords.contains) else { return tokens }
        var start = 0
        if nameLength(in: tokens, at: 0) == 0, let wake = Self.sequence(wakeWords, in: tokens, at: 0), wake < tokens.count {
            start = wake
        }
        var result: [String] = []
        result.reserveCapacity(tokens.count)
        var i = start
        while i < tokens.count {
            let name = nameLength(in: tokens, at: i)
            if name > 0 {
                result += tokens[i..<(i + name)]
                i += name
            } else if let skip = Self.sequence(skipWords, in: tokens, at: i) {
                i += skip
            } else {
                result.append(tokens[i])
                i += 1
            }
        }
        return result
    }

    /// How many words of the longest of `sequences` start `tokens` at `i`, if one does.
    private static func sequence(_ sequences: [[String]], in tokens: [String], at i: Int) -> Int? {
        for s in sequences where i + s.count <= tokens.count && tokens[i] == s[0] && tokens[i..<(i + s.count)].elementsEqual(s) {
            return s.count
        }
        return nil
    }

    /// How many words of the longest house name start `tokens` at `i` (0 for none).
    private func nameLength(in tokens: [String], at i: Int) -> Int {
        guard let candidates = names[tokens[i]] else { return 0 }
        return Self.sequence(candidates, in: tokens, at: i) ?? 0
    }

    /// Interprets a line of text: one command, or several joined by "and".
    ///
    /// The whole text is tried first, so an "and" inside a name ("bed and breakfast room") or a
    /// duration ("an hour and a half") stays whole; otherwise the text is split at the "and"s
    /// that leave every part understood.
    /// `suggest: false` skips computing the closest phrases when nothing matches.
    public func interpret(_ text: String, suggest: Bool = true) -> PhraseInterpretation {
        let words = words(text)
        guard !words.isEmpty else { return .noMatch(text: "", suggestions: suggest ? suggestions(for: []) : []) }
        guard words.count <= Self.maxWords else { return .noMatch(text: words.joined(separator: " "), suggestions: []) }
        if let commands = commands(words) ?? respellings(words).lazy.compactMap(commands).first { return .commands(commands) }
        return .noMatch(text: words.joined(separator: " "), suggestions: suggest ? suggestions(for: words) : [])
    }

    /// Other readings of `words` that matched nothing as typed, to try in turn (`spelling`): each
    /// word no template has read again ("kuechenlicht": "küche licht"), then also the compounds
    /// the templates know as one word ("badheizung": "bad heizung"). Only on this path, so text
    /// that matches as typed costs nothing more.
    private func respellings(_ words: [String]) -> [[String]] {
        guard let spelling else { return [] }
        let known = { (word: String) in automaton.tokenTable.id(word) >= 0 }
        var result: [[String]] = []
        let unknown = words.flatMap { known($0) ? [$0] : spelling.read($0, known: known) ?? [$0] }
        if unknown != words { result.append(unknown) }
        let split = unknown.flatMap { word in names[word]?.contains([word]) == true ? [word] : spelling.compound(word, known: known) ?? [word] }
        if split != unknown { result.append(split) }
        return result
    }

    /// `words` as one command, or as several joined by "and"; nil when that leaves some not understood.
    private func commands(_ words: [String]) -> [PhraseCommand]? {
        let ids = words.map(automaton.tokenTable.id)
        let whole = candidates(ids: ids, words: words)
        if !whole.isEmpty { return [PhraseCommand(words: words, candidates: whole)] }

        let ands = words.indices.filter { conjunctions.contains(words[$0]) }
        if !ands.isEmpty {
            // A part that does not stand on its own may borrow the start of the part before it:
            // "turn off the kettle and the tv" -> "turn off the tv".
            func command(_ part: [String], after previous: [String]?) -> PhraseCommand? {
                guard !part.isEmpty else { return nil }
                let found = candidates(ids: part.map(automaton.tokenTable.id), words: part)
                if !found.isEmpty { return PhraseCommand(words: part, candidates: found) }
                guard let previous, previous.count > 1 else { return nil }
                for k in 1..<previous.count {
                    let borrowed = Array(previous[..<k]) + part
                    let found = candidates(ids: borrowed.map(automaton.tokenTable.id), words: borrowed)
                    if !found.isEmpty { return PhraseCommand(words: borrowed, candidates: found) }
                }
                return nil
            }
            var memo: [String: [PhraseCommand]?] = [:]
            func cover(_ start: Int, after previous: [String]?) -> [PhraseCommand]? {
                let key = "\(start)|" + (previous?.joined(separator: " ") ?? "")
                if let known = memo[key] { return known }
                var result: [PhraseCommand]? = nil
                for cut in ands where cut > start {
                    guard let head = command(Array(words[start..<cut]), after: previous) else { continue }
                    if let rest = command(Array(words[(cut + 1)...]), after: head.words) {
                        result = [head, rest]
                        break
                    }
                    if let tail = cover(cut + 1, after: head.words) {
                        result = [head] + tail
                        break
                    }
                }
                memo[key] = .some(result)
                return result
            }
            if let commands = cover(0, after: nil) { return sharingPlace(commands) }
        }
        return nil
    }

    /// Commands joined by "and" with the place said once, at the end ("turn off the fan and the
    /// monitor in the office"): a part that names no place, and would otherwise have to ask which
    /// device, takes the last part's when the device is there.
    private func sharingPlace(_ commands: [PhraseCommand]) -> [PhraseCommand] {
        func place(_ c: PhraseCommand) -> Bool {
            guard let slots = c.candidates.first?.slots else { return false }
            return slots["room"] != nil || slots["floor"] != nil
        }
        guard commands.count > 1, let last = commands.last, place(last),
              let at = last.words.lastIndex(where: { $0 == "in" || $0 == "on" || $0 == "at" }) else { return commands }
        let suffix = last.words[at...]
        return commands.dropLast().map { command in
            guard !place(command) else { return command }
            let words = command.words + suffix
            let found = candidates(ids: words.map(automaton.tokenTable.id), words: words)
            let placed = PhraseCommand(words: words, candidates: found)
            guard !found.isEmpty, place(placed) else { return command }
            guard let house else { return placed }
            func kinds(_ c: PhraseCommand) -> Set<ParameterResolution.Kind> {
                guard let intent = c.candidates.first?.intent else { return [.unsupported] }
                return Set(IntentResolver(configuration: house).resolve(intent).parameters.map(\.kind))
            }
            let unclear: Set<ParameterResolution.Kind> = [.disambiguation, .needsValue, .unsupported]
            return kinds(command).isDisjoint(with: unclear) || !kinds(placed).isDisjoint(with: unclear) ? command : placed
        } + [last]
    }

    /// The best whole-text match as (intent name, slots), without splitting at "and"; what
    /// hassil's `recognize` answers, for comparisons.
    public func bestMatch(_ text: String) -> (intent: String, slots: [String: String])? {
        bestCandidate(text).map { ($0.intentName, $0.slots) }
    }

    /// The best reading of the whole of `text` as one command, or nil.
    public func bestCandidate(_ text: String) -> PhraseCandidate? {
        let words = words(text)
        guard !words.isEmpty, words.count <= Self.maxWords else { return nil }
        func best(_ words: [String]) -> PhraseCandidate? { candidates(ids: words.map(automaton.tokenTable.id), words: words).first }
        return best(words) ?? respellings(words).lazy.compactMap(best).first
    }

    /// The closest phrases this matcher knows to `text` (examples generated from the templates),
    /// best first.
    public func suggestions(for text: String, limit: Int = 3) -> [String] {
        suggestions(for: PhraseNormalizer.tokens(text), limit: limit)
    }

    func suggestions(for words: [String], limit: Int = 3) -> [String] {
        suggester.suggester.suggest(words: words, automaton: automaton, limit: limit, accept: isSensible)
    }

    /// True when `text` matches a template whose intent the house can resolve: no device it
    /// does not have in that room, no action its kind cannot do ("open the ceiling light").
    func isSensible(_ text: String) -> Bool {
        let words = words(text)
        guard let intent = candidates(ids: words.map(automaton.tokenTable.id), words: words).first?.intent else { return false }
        guard let house else { return true }
        // An action no device of that name can do, even before a question would pick one.
        if case .control(let c) = intent, let action = c.action, let name = c.device, c.capability == nil {
            let found = house.devices(matching: name, plural: c.plural).devices
            if !found.contains(where: { $0.kind.supportedActions.contains(action) }) { return false }
        }
        return !IntentResolver(configuration: house).resolve(intent).parameters.contains { $0.kind == .unsupported }
    }

    /// Ranked candidates for one command's words: best score first, one per distinct intent.
    func candidates(ids: [Int32], words: [String]) -> [PhraseCandidate] {
        var raw = match(ids: ids, words: words)
        // Our own templates win over the community grammar's.
        if raw.contains(where: { $0.fromGrammar }) && raw.contains(where: { !$0.fromGrammar }) { raw.removeAll(where: \.fromGrammar) }
        raw.sort { $0.score != $1.score ? $0.score > $1.score : $0.order < $1.order }
        if raw.count < 2 { return raw }
        var result: [PhraseCandidate] = []
        result.reserveCapacity(raw.count)
        for candidate in raw {
            let duplicate = result.contains { kept in
                if let intent = candidate.intent { return kept.intent == intent }
                return kept.intent == nil && kept.intentName == candidate.intentName && kept.slotList == candidate.slotList
            }
            if !duplicate { result.append(candidate) }
        }
        return result
    }

    private struct Thread {
        var node: Int32
        var caps: Int32
        var literals: Int16
        /// Letters of the literal words matched, each word counted with a space (hassil's
        /// `text_chunks_matched`, which ranks the grammar's matches).
        var letters: Int16
        var slots: Int16
    }

    /// A captured slot value: an index into the automaton's list values, or a number (built-ins).
    private struct Capture {
        var slot: Int32
        var valueIndex: Int32
        var number: Int
        var parent: Int32
        /// The words it took: `start..<end`.
        var start: Int32
        var end: Int32
    }

    /// Every complete match of the words, unranked.
    func match(ids: [Int32], words: [String]) -> [PhraseCandidate] {
        let a = automaton
        let n = ids.count
        guard n > 0 else { return [] }
        let kinds = a.kinds, args = a.args, nexts = a.nexts, slotsOf = a.slotsOf
        let closureOffset = a.closureOffset, closureCount = a.closureCount, closurePool = a.closurePool
        // Threads at the current position, at the next one, and further ahead (multi-word list values).
        var current: [Thread] = []
        var next: [Thread] = []
        var future: [(at: Int, thread: Thread)] = []
        current.reserveCapacity(32)
        next.reserveCapacity(32)
        var captures: [Capture] = []
        var found: [(template: Int32, caps: Int32, score: Int)] = []
        var listHits: [(end: Int, value: Int32)] = []
        var numberHits: [(end: Int, value: Int)] = []
        // Each word's letters and the space after it (hassil ranks the grammar's matches by them).
        let letters = words.map { Int16(truncatingIfNeeded: $0.unicodeScalars.count + 1) }
        var seen = Set<Int64>()
        var seenSmall: [Int64] = []
        seenSmall.reserveCapacity(64)

        for node in a.rootOther { current.append(Thread(node: node, caps: -1, literals: 0, letters: 0, slots: 0)) }
        if ids[0] >= 0 {
            for node in a.rootByToken[Int(ids[0])] { current.append(Thread(node: node, caps: -1, literals: 0, letters: 0, slots: 0)) }
        }
        var p = 0
        while p <= n {
            let count = current.count
            let small = count <= 64
            if small { seenSmall.removeAll(keepingCapacity: true) } else { seen.removeAll(keepingCapacity: true) }
            var perState: [Int32: Int] = [:]
            let token: Int32 = p < n ? ids[p] : -2
            var index = 0
            while index < count {
                let t = current[index]
                index += 1
                let node = Int(t.node)
                let kind = kinds[node]
                if kind == .word && args[node] != token { continue }
                let key = Int64(t.node) << 32 | Int64(UInt32(bitPattern: t.caps))
                if small {
                    if seenSmall.contains(key) { continue }
                    seenSmall.append(key)
                } else {
                    guard seen.insert(key).inserted else { continue }
                    if count > 256 {
                        let c = perState[t.node, default: 0]
                        guard c < Self.maxThreadsPerState else { continue }
                        perState[t.node] = c + 1
                    }
                }
                switch kind {
                case .word:
                    let target = Int(nexts[node])
                    let offset = Int(closureOffset[target])
                    for i in offset..<(offset + Int(closureCount[target])) {
                        next.append(Thread(node: closurePool[i], caps: t.caps, literals: t.literals + 1,
                                           letters: t.letters &+ letters[p], slots: t.slots))
                    }
                case .list:
                    guard p < n else { continue }
                    listHits.removeAll(keepingCapacity: true)
                    numberHits.removeAll(keepingCapacity: true)
                    switch a.lists[Int(args[node])] {
                    case .trie(let box):
                        box.matches(ids, from: p, into: &listHits)
                    case .number:
                        numberHits = PhraseSpokenNumbers.numbers(words, from: p)
                    case .duration:
                        for hit in PhraseSpokenNumbers.durations(words, from: p)
                        where !numberHits.contains(where: { $0.end == hit.end && $0.value == hit.seconds }) {
                            numberHits.append((hit.end, hit.seconds))
                        }
                    }
                    let target = Int(nexts[node])
                    let offset = Int(closureOffset[target])
                    let range = offset..<(offset + Int(closureCount[target]))
                    func advance(to end: Int, capture: Capture) {
                        captures.append(capture)
                        let caps = Int32(captures.count - 1)
                        for i in range {
                            let thread = Thread(node: closurePool[i], caps: caps, literals: t.literals, letters: t.letters, slots: t.slots + 1)
                            if end == p + 1 { next.append(thread) } else { future.append((end, thread)) }
                        }
                    }
                    for hit in listHits where hit.end <= n {
                        advance(to: hit.end, capture: Capture(slot: slotsOf[node], valueIndex: hit.value, number: 0, parent: t.caps,
                                                              start: Int32(p), end: Int32(hit.end)))
                    }
                    for hit in numberHits where hit.end <= n {
                        advance(to: hit.end, capture: Capture(slot: slotsOf[node], valueIndex: -1, number: hit.value, parent: t.caps,
                                                              start: Int32(p), end: Int32(hit.end)))
                    }
                case .accept:
                    if p == n {
                        let score = a.templates[Int(args[node])].fromGrammar ? Int(t.letters) : Int(t.literals) * 100 + 99 - Int(t.slots)
                        found.append((args[node], t.caps, score))
                    }
                case .split:
                    continue
                }
            }
            p += 1
            swap(&current, &next)
            next.removeAll(keepingCapacity: true)
            if !future.isEmpty {
                for f in future where f.at == p { current.append(f.thread) }
                future.removeAll { $0.at == p }
            }
            if current.isEmpty && future.isEmpty { break }
        }

        if found.count > 1 {
            var unique: [(template: Int32, caps: Int32, score: Int)] = []
            for f in found where !unique.contains(where: { $0.template == f.template && $0.caps == f.caps }) { unique.append(f) }
            found = unique
        }
        return found.compactMap { hit in
            let template = a.templates[Int(hit.template)]
            var slots: [PhraseSlot] = []
            slots.reserveCapacity(8)
            var c = hit.caps
            var score = hit.score
            while c >= 0 {
                let capture = captures[Int(c)]
                let name = a.slotNames[Int(capture.slot)]
                // hassil's choice among the grammar's matches: one that names a device (the
                // longest name said) before one that does not, then the most literal text.
                if template.fromGrammar && name == "name" {
                    let said = letters[Int(capture.start)..<Int(capture.end)].reduce(-1) { $0 + Int($1) }
                    score += 1_000_000 + 1_000 * min(said, 999)
                }
                if !slots.contains(where: { $0.name == name }) {
                    let value = capture.valueIndex >= 0 ? a.valueStrings[Int(capture.valueIndex)] : String(capture.number)
                    slots.append(PhraseSlot(name: name, value: value))
                }
                c = capture.parent
            }
            for fixed in template.fixedSlots where !slots.contains(where: { $0.name == fixed.name }) { slots.append(fixed) }
            slots.sort { $0.name < $1.name }
            let intent = PhraseIntentBuilder.intent(name: template.intent) { name in slots.first { $0.name == name }?.value }
            // A house intent whose slot values make no intent ("the last 0 hours") is no match.
            if intent == nil && PhraseIntentBuilder.intentNames.contains(template.intent) { return nil }
            return PhraseCandidate(intentName: template.intent, slotList: slots, intent: intent,
                                   template: template.sentence, score: score, fromGrammar: template.fromGrammar,
                                   language: template.language, order: Int(hit.template))
        }
    }
}
