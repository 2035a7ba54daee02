import HouseCore

/// Everything that can go wrong in HouseGPIO: opening chips, requesting and driving lines, and
/// building a relay layout from the configuration.
///
/// Each case names the C call (or simulated operation) that failed, the chip and the line, and the
/// description says what to do about it.
public enum GPIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No GPIO chip exists on this machine at all (no `/dev/gpiochip*`).
    case noChips(call: String, chip: String)
    /// The chip asked for does not exist; `available` lists the chips that do (`name (label)`).
    case chipNotFound(call: String, chip: String, available: [String])
    /// The kernel refused access to the chip or line.
    case permissionDenied(call: String, chip: String, line: Int?)
    /// The line is already requested by another consumer (`holder`, when the kernel names one).
    case lineBusy(call: String, chip: String, line: Int, holder: String?)
    /// The chip has no such line.
    case lineMissing(call: String, chip: String, line: Int, lineCount: Int)
    /// The line is not held by this process, so it cannot be driven.
    case lineNotHeld(chip: String, line: Int)
    /// Any other failure of a C call, with its errno and the system's message for it.
    case callFailed(call: String, chip: String, line: Int?, errno: Int32, message: String)
    /// The configuration does not describe a usable set of relays for this node.
    case invalidLayout(node: NodeID, problems: [String])

    public var description: String {
        switch self {
        case .noChips(let call, let chip):
            return "\(call)(\"\(chip)\") failed: no GPIO chips found on this machine (no /dev/gpiochip*). "
                + "On a Raspberry Pi check that the kernel exposes the GPIO character device; "
                + "elsewhere run with --gpio sim to use simulated relays."
        case .chipNotFound(let call, let chip, let available):
            return "\(call)(\"\(chip)\") failed: no GPIO chip named \"\(chip)\". "
                + "Chips on this machine: \(available.joined(separator: ", ")). "
                + "Set `chip:` on the node (or --gpio CHIP) to one of them: a name, /dev path, label or number."
        case .permissionDenied(let call, let chip, let line):
            return "\(call) failed on \(chip)\(line.map { " line \($0)" } ?? ""): permission denied. "
                + "Add the user running housectl to the gpio group (sudo usermod -aG gpio $USER, then log in again) "
                + "or run it under the systemd unit, which has that group."
        case .lineBusy(let call, let chip, let line, let holder):
            let who = holder.map { "by \"\($0)\"" } ?? "by another process (the kernel does not name it)"
            return "\(call) failed on \(chip) line \(line): the line is busy, held \(who). "
                + "Stop that program (or free the line from its overlay in config.txt) so housectl can own the relay, "
                + "or wire the relay to another line."
        case .lineMissing(let call, let chip, let line, let lineCount):
            return "\(call) failed on \(chip) line \(line): the chip has no such line (it has \(lineCount) lines, 0...\(max(lineCount - 1, 0))). "
                + "Check the board profile's channel-to-line map and the node's chip."
        case .lineNotHeld(let chip, let line):
            return "\(chip) line \(line) is not held by housectl; request it before driving it."
        case .callFailed(let call, let chip, let line, let errno, let message):
            return "\(call) failed on \(chip)\(line.map { " line \($0)" } ?? ""): \(message) (errno \(errno))."
        case .invalidLayout(let node, let problems):
            return "the relays of node \"\(node)\" cannot be set up:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
        }
    }
}
