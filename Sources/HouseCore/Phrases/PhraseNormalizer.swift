/// Turns text into the tokens the matcher compares: lower case, apostrophes dropped ("we're" is
/// "were", "what's" is "whats"), punctuation and extra spaces removed, hyphens and underscores
/// split words. A decimal point between digits is kept ("1.5").
public enum PhraseNormalizer {
    /// The normalised words of `text`.
    public static func tokens(_ text: String) -> [String] {
        if let ascii = asciiTokens(text) { return ascii }
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

    /// Fast path for plain ASCII text (what is typed most of the time); nil for anything else.
    static func asciiTokens(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes -> [String]? in
            var tokens: [String] = []
            tokens.reserveCapacity(12)
            var word: [UInt8] = []
            word.reserveCapacity(32)
            var i = 0
            let n = bytes.count
            while i < n {
                var b = bytes[i]
                if b >= 128 { return nil }
                if b >= 65 && b <= 90 { b += 32 }
                if (b >= 97 && b <= 122) || (b >= 48 && b <= 57) {
                    word.append(b)
                } else if b == 39 || b == 96 {
                    // apostrophe: dropped, joining the word
                } else if b == 46, let last = word.last, last >= 48, last <= 57, i + 1 < n, bytes[i + 1] >= 48, bytes[i + 1] <= 57 {
                    word.append(b)
                } else if !word.isEmpty {
                    tokens.append(String(decoding: word, as: UTF8.self))
                    word.removeAll(keepingCapacity: true)
                }
                i += 1
            }
            if !word.isEmpty { tokens.append(String(decoding: word, as: UTF8.self)) }
            return tokens
        }
    }

    /// The normalised text: tokens joined by single spaces.
    public static func normalize(_ text: String) -> String {
        tokens(text).joined(separator: " ")
    }
}
