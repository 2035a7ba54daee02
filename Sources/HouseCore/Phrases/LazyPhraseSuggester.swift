import Synchronization

/// A `PhraseSuggester` built on first use. Most runs never answer "did you mean ...", and
/// building one (every template's sample skeletons) was a third of the matcher's start, which is
/// on the controller's way to ready.
final class LazyPhraseSuggester: Sendable {
    private let automaton: PhraseAutomaton
    private let sampler: PhraseSampler
    private let built = Mutex<PhraseSuggester?>(nil)

    init(automaton: PhraseAutomaton, sampler: PhraseSampler) {
        self.automaton = automaton
        self.sampler = sampler
    }

    /// The suggester, built the first time it is asked for.
    var suggester: PhraseSuggester {
        built.withLock { built in
            if let s = built { return s }
            let s = PhraseSuggester(automaton: automaton, sampler: sampler, listNames: automaton.listNames)
            built = s
            return s
        }
    }
}
