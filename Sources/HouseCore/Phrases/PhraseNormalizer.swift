/// Turns text into the tokens the matcher compares: lower case, apostrophes dropped ("we're" is
/// "were", "what's" is "whats"), punctuation and extra spaces removed, hyphens and underscores
/// split words. A decimal point between digits is kept ("1.5").
public enum PhraseNormalizer {
    /// The normalised words of `text`.
    public static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        let scalars = Array(text.unicodeScalars)
        var i = 0
        func flush() {
            if !current.isEmpty { tokens.append(current); current = "" }
        }
        while i < scalars.count {
            let s = scalars[i]
            switch s {
            case "'", "\u{2019}", "\u{2018}", "`", "\u{00B4}":
                break // dropped, joining the word ("we're" -> "were")
            case "." where !current.isEmpty && current.unicodeScalars.last!.properties.numericType != nil
                && i + 1 < scalars.count && scalars[i + 1].properties.numericType != nil:
                current.unicodeScalars.append(s)
            default:
                if s.properties.isAlphabetic || s.properties.numericType != nil {
                    current.unicodeScalars.append(contentsOf: String(s).lowercased().unicodeScalars)
                } else {
                    flush()
                }
            }
            i += 1
        }
        flush()
        return tokens
    }

    /// The normalised text: tokens joined by single spaces.
    public static func normalize(_ text: String) -> String {
        tokens(text).joined(separator: " ")
    }
}
