import Foundation

/// The lines of one gpio-sim bank as the simulator's sysfs attributes show them: the physical level
/// a consumer drives (`sim_gpioN/value`), read without touching the line through libgpiod.
struct GPIOSimLines {
    /// The bank's device directory, e.g. `/sys/devices/platform/gpio-sim.0/gpiochip0`.
    let directory: String

    /// The physical level of `line` (true = high), or a description of what could not be read.
    func level(_ line: Int) -> Result<Bool, VMCheckFailure> {
        let path = "\(directory)/sim_gpio\(line)/value"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            return .failure(VMCheckFailure("cannot read \(path)"))
        }
        switch text.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "1": return .success(true)
        case "0": return .success(false)
        case let other: return .failure(VMCheckFailure("\(path) holds \"\(other)\", expected 0 or 1"))
        }
    }
}
