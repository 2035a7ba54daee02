extension QRCode {
    /// The code as lines of text for a terminal, two rows of modules a line in Unicode half
    /// blocks, with a quiet zone of `quietZone` modules around it. The light modules are drawn
    /// (`█` both, `▀` the upper, `▄` the lower) and the dark ones left blank, as `qrencode -t UTF8`
    /// does: right on a dark terminal; `ansi` adds white-on-black colours so that it is right on a
    /// light one too.
    public func terminalLines(quietZone: Int = 2, ansi: Bool = false) -> [String] {
        let range = -quietZone..<(size + quietZone)
        var lines: [String] = []
        for top in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
            var line = ""
            for column in range {
                let upper = !self[top, column]
                let lower = top + 1 < range.upperBound ? !self[top + 1, column] : false
                line.append(upper ? (lower ? "█" : "▀") : (lower ? "▄" : " "))
            }
            lines.append(ansi ? "\u{1B}[97;40m" + line + "\u{1B}[0m" : line)
        }
        return lines
    }
}
