/// How a house's people write words the templates spell otherwise, for a matcher compiled for a
/// house: a word no template or list has is read again as
///
/// - the same word with its umlauts and ß, when it was typed without them ("kueche" is "küche",
///   "schliessen" is "schließen");
/// - two words, when it is a compound of a place or mode of the house and a word the templates
///   know, with or without a German joining letter ("Küchenlicht" is "küche licht",
///   "Garagenlicht" is "garage licht", "Urlaubsmodus" is "urlaub modus"; also typed without
///   umlauts).
///
/// The matcher reads text so only when it matches nothing as typed, and a compound the templates
/// know as one word ("badheizung", which the grammar joins from "{area}[ ]heizung") only after
/// that; never a word that is a name of the house ("Garagentor" stays whole). A matcher compiled
/// without a house reads words as typed.
struct PhraseSpelling: Sendable {
    /// Words of the vocabulary with ä, ö, ü or ß, by their spelling without them.
    private let respelled: [String: String]
    /// The single-word names of the house's rooms, floors and modes, as the vocabulary spells
    /// them, by their spelling without umlauts; longest first.
    private let heads: [(folded: String, word: String)]
    /// What may join the two parts of a compound: "Küche-n-licht", "Urlaub-s-modus".
    private static let joins = ["", "n", "s", "en", "es"]
    /// The shortest second part read in a compound.
    private static let shortestTail = 3

    /// Spellings for `vocabulary` (the automaton's words) and the house's one-word place and
    /// mode names (as normalised tokens).
    init(vocabulary: some Sequence<String>, heads names: some Sequence<String>) {
        var respelled: [String: String] = [:]
        for word in vocabulary {
            let folded = Self.fold(word)
            if folded != word { respelled[folded] = word }
        }
        self.respelled = respelled
        var heads: [String: String] = [:]
        for name in names where name.count >= 3 { heads[Self.fold(name)] = name }
        self.heads = heads.map { ($0.key, $0.value) }.sorted { $0.folded.count > $1.folded.count }
    }

    /// `word`, known or not, as the words the templates know, or nil when it cannot be read so.
    /// `known` says whether the templates have a word.
    func read(_ word: String, known: (String) -> Bool) -> [String]? {
        let folded = Self.fold(word)
        if let spelled = respelled[folded] { return [spelled] }
        if known(folded) { return [folded] }
        return compound(word, known: known)
    }

    /// `word` as a compound of a place or mode of the house and a word the templates know, or
    /// nil. Also for a word the templates have: the grammar joins some words itself ("Badheizung"
    /// from "{area}[ ]heizung") in templates that may not fit the device.
    func compound(_ word: String, known: (String) -> Bool) -> [String]? {
        let folded = Self.fold(word)
        for head in heads where folded.count > head.folded.count && folded.hasPrefix(head.folded) {
            let rest = folded.dropFirst(head.folded.count)
            for join in Self.joins where rest.hasPrefix(join) {
                let tail = String(rest.dropFirst(join.count))
                guard tail.count >= Self.shortestTail else { continue }
                if let spelled = respelled[tail] { return [head.word, spelled] }
                if known(tail) { return [head.word, tail] }
            }
        }
        return nil
    }

    /// `word` with ä, ö, ü and ß written as ae, oe, ue and ss.
    static func fold(_ word: String) -> String {
        guard word.utf8.contains(where: { $0 >= 0x80 }) else { return word }
        return word.reduce(into: "") { out, c in
            if let two = umlauts[c] { out += two } else { out.append(c) }
        }
    }

    private static let umlauts: [Character: String] = ["ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"]
}
