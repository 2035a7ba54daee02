/// Chooses the GPIO chip for a node: the `--gpio sim|CHIP` option, or the configured chip with a
/// fallback to the simulation on machines without GPIO.
public enum GPIOBackend {
    /// The chip to use and, when the simulation stands in for missing hardware, a one-line warning.
    public struct Selection: Sendable {
        public var chip: any GPIOChip
        public var warning: String?
    }

    /// How many of its newest writes a simulated chip chosen here keeps (it may run for months).
    public static let simulatedRecordLimit = 1_000

    /// - `option == "sim"`: a `SimulatedChip` named after the configured chip.
    /// - `option` is a chip: that chip through libgpiod; errors are thrown as they are.
    /// - `option == nil`: the configured chip through libgpiod; when this machine has no GPIO chip at
    ///   all, a `SimulatedChip` with a warning. Other errors (permission, wrong name) are thrown.
    public static func open<C: Clock>(option: String?, configuredChip: String, clock: C) throws(GPIOError) -> Selection
    where C.Duration == Duration {
        if option == "sim" {
            return Selection(chip: SimulatedChip(name: configuredChip, recordLimit: simulatedRecordLimit, clock: clock), warning: nil)
        }
        if let option {
            return Selection(chip: try LibgpiodChip(opening: option), warning: nil)
        }
        do {
            return Selection(chip: try LibgpiodChip(opening: configuredChip), warning: nil)
        } catch .noChips {
            return Selection(
                chip: SimulatedChip(name: configuredChip, recordLimit: simulatedRecordLimit, clock: clock),
                warning: "warning: no GPIO chip on this machine; relays are simulated (use --gpio CHIP to insist on hardware)")
        }
    }
}
