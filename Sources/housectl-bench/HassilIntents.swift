/// A hassil intents file, as `PhraseBenchmark.hassilExport` writes it for `bench/phrases/hassil_bench.py`
/// (JSON, which hassil reads as YAML).
struct HassilIntents: Codable, Sendable {
    /// Templates of one intent, with fixed slot values.
    struct Entry: Codable, Sendable {
        var sentences: [String]
        var slots: [String: String]?
    }

    /// The entries of one intent.
    struct Intent: Codable, Sendable {
        var data: [Entry]
    }

    /// One spoken value of a list and the value it stands for.
    struct ListValue: Codable, Sendable {
        var `in`: String
        var out: String
    }

    /// A slot list, every value spelled out.
    struct List: Codable, Sendable {
        var values: [ListValue]
    }

    var language: String
    var intents: [String: Intent]
    var lists: [String: List]
    var expansionRules: [String: String]
    var skipWords: [String]

    enum CodingKeys: String, CodingKey {
        case language, intents, lists
        case expansionRules = "expansion_rules"
        case skipWords = "skip_words"
    }
}
