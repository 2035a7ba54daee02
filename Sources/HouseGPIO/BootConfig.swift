import HouseCore

/// The Raspberry Pi `config.txt` lines that hold every relay line of a node at its OFF level from
/// power-on until housectl requests the lines (`housectl deploy boot-config`).
///
/// Without them the firmware leaves the lines as inputs with their default pulls, and an
/// active-low board on a pulled-down line clicks its relay on at boot.
public enum BootConfig {
    /// One `gpio=` line per relay line of `layout`: output, driven to the level that means off
    /// (`dh` for active-low boards, `dl` otherwise), each with a comment naming the device; then
    /// one per input of the node (`inputs`): input, with its pull (`pu`, `pd`, `pn`), so a
    /// button's line is not floating before housectl requests it.
    public static func lines(for layout: RelayLayout, inputs: [Device] = []) -> [String] {
        var out: [String] = []
        out.append("# housectl: hold the relay lines of node \"\(layout.node)\" (board \"\(layout.board)\", chip \(layout.chip)) OFF from power-on"
                   + (inputs.isEmpty ? "." : ", and pull its input lines."))
        out.append("# Add to /boot/firmware/config.txt (/boot/config.txt before bookworm), in the [all] section, and reboot.")
        if !isMainChip(layout.chip) {
            out.append("# WARNING: gpio= only sets the SoC's own lines; chip \(layout.chip) may be an expander that these lines do not reach.")
        }
        var entries: [(channel: Int, line: Int, text: String, activeLow: Bool)] = []
        for c in layout.channels {
            var what = "\(c.device)"
            if !c.room.isEmpty { what += " (room \(c.room))" }
            entries.append((c.channel, c.line, what, c.activeLow))
        }
        let activeLow = layout.channels.first?.activeLow ?? true
        for (channel, line) in layout.unusedChannels {
            entries.append((channel, line, "no device (unused channel)", activeLow))
        }
        for e in entries.sorted(by: { $0.channel < $1.channel }) {
            let level = e.activeLow ? "dh" : "dl"
            let how = e.activeLow ? "active-low: off = high" : "active-high: off = low"
            out.append("# channel \(e.channel): \(e.text), \(how)")
            out.append("gpio=\(e.line)=op,\(level)")
        }
        for device in inputs.sorted(by: { ($0.input?.line ?? 0) < ($1.input?.line ?? 0) }) {
            guard let input = device.input else { continue }
            let pull = switch input.bias {
            case .pullUp: "pu"
            case .pullDown: "pd"
            case .disabled: "pn"
            }
            out.append("# input line \(input.line): \(device.id) (\(device.kind.rawValue), room \(device.room)), \(input.bias.rawValue)")
            out.append("gpio=\(input.line)=ip,\(pull)")
        }
        return out
    }

    /// The lines as one text, newline-terminated.
    public static func render(_ layout: RelayLayout, inputs: [Device] = []) -> String {
        lines(for: layout, inputs: inputs).joined(separator: "\n") + "\n"
    }

    private static func isMainChip(_ chip: String) -> Bool {
        ["gpiochip0", "/dev/gpiochip0", "0", "pinctrl-bcm2835", "pinctrl-bcm2711", "pinctrl-rp1", "pinctrl-bcm2712"].contains(chip)
    }
}
