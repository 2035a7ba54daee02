/// "Did you mean" suggestions for misspelt keys and references.
enum Suggestion {
    /// The candidate closest to `word`, when it is close enough to be a likely typo.
    static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let w = word.lowercased()
        var best: (String, Int)? = nil
        for c in candidates {
            let d = distance(w, c.lowercased())
            if best == nil || d < best!.1 { best = (c, d) }
        }
        guard let (candidate, d) = best else { return nil }
        let limit = max(2, min(w.count, candidate.count) / 3)
        return d <= limit ? candidate : nil
    }

    /// ` (did you mean 'x'?)` or the empty string.
    static func hint(for word: String, in candidates: some Sequence<String>) -> String {
        closest(to: word, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// Levenshtein edit distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
