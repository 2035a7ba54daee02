import Yams

/// Reads one `devices/<board>.yaml` relay-board profile.
enum BoardProfileParser {
    static let keys = ["id", "name", "chip", "active_low", "channels", "input_lines", "notes", "docs"]

    static func parse(_ root: YNode, fileID: String, ctx: ConfigContext) -> BoardProfile? {
        guard let m = ctx.map(root, what: "board profile", allowed: keys) else { return nil }
        let id = m.string("id", expected: "the board's id (the file name without .yaml)") ?? fileID
        if id != fileID {
            ctx.error("board id '\(id)' differs from its file name '\(fileID).yaml'; nodes name boards by file", at: m["id"])
        }
        let name = m.string("name", expected: "the board's name", required: true)
        let chip = m.string("chip", expected: "the GPIO chip, e.g. gpiochip0") ?? "gpiochip0"
        let activeLow = m.require("active_low", expected: "true when a low line energises the relay").flatMap { ctx.bool($0) }
        var channels: [Int: Int] = [:]
        if let c = m.require("channels", expected: "a mapping of channel number to GPIO line offset (BCM number)"),
           case .mapping(let cm) = c {
            var lines: [Int: Int] = [:]
            for (key, value) in cm {
                guard let ch = ctx.int(key, expected: "a channel number (1 or more)", range: 1...64),
                      let line = ctx.int(value, expected: "a GPIO line offset (BCM number 0...511)", range: 0...511) else { continue }
                if let other = lines[line] {
                    ctx.error("line \(line) is wired to both channel \(other) and channel \(ch)", at: value)
                }
                lines[line] = ch
                channels[ch] = line
            }
            if channels.isEmpty && cm.count == 0 { ctx.error("expected at least one channel", at: c) }
        } else if let c = m["channels"] {
            ctx.error("expected channels as a mapping of channel number to GPIO line offset, found \(ConfigContext.describe(c))", at: c)
        }
        var inputLines: [Int]? = nil
        if let il = m["input_lines"], let items = ctx.sequence(il, expected: "the GPIO lines free for inputs (BCM numbers)") {
            inputLines = items.compactMap { ctx.int($0, expected: "a GPIO line offset (BCM number 0...511)", range: 0...511) }
            for line in inputLines ?? [] where channels.values.contains(line) {
                ctx.error("input line \(line) is wired to a relay channel of the board", at: il)
            }
        }
        var notes = m.string("notes", expected: "wiring notes")
        if let docs = m.string("docs", expected: "a link to the maker's documentation") {
            notes = [notes, "Docs: \(docs)"].compactMap { $0 }.joined(separator: "\n")
        }
        guard let name, let activeLow, !channels.isEmpty else { return nil }
        return BoardProfile(id: id, name: name, chip: chip, activeLow: activeLow, channels: channels, inputLines: inputLines, notes: notes)
    }
}
