/// Small pieces every drawing of the page shares: text made safe for XML and HTML, clipped
/// labels, and a steady colour per name.
enum SVG {
    /// `text` with `& < > " '` escaped, for element text and attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    /// At most `count` characters, with an ellipsis when cut.
    static func clip(_ text: String, _ count: Int) -> String {
        guard count > 1, text.count > count else { return count <= 1 ? "" : text }
        return String(text.prefix(count - 1)) + "…"
    }

    /// A colour chosen by the name (the same name, the same colour, on every drawing).
    static func color(for name: String) -> String {
        let palette = ["#8ecae6", "#ffb703", "#90be6d", "#f28482", "#b5838d", "#84a59d", "#cdb4db", "#f4a261", "#a8dadc", "#e9c46a"]
        var hash: UInt32 = 2_166_136_261
        for b in name.utf8 { hash = (hash ^ UInt32(b)) &* 16_777_619 }
        return palette[Int(hash % UInt32(palette.count))]
    }
}
