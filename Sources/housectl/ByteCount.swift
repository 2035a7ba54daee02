import ArgumentParser
import Foundation

/// A number of bytes on the command line: `65536`, `64K`, `64KiB`, `16M`, `16MiB`, `1G` (K, M and G
/// are powers of 1024, as in mosquitto's `max_queued_bytes` docs).
struct ByteCount: ExpressibleByArgument, CustomStringConvertible {
    let bytes: Int

    init(_ bytes: Int) {
        self.bytes = bytes
    }

    init?(argument: String) {
        var digits = Substring(argument.trimmingCharacters(in: .whitespaces))
        var multiplier = 1
        for (suffixes, factor) in [(["GiB", "G"], 1 << 30), (["MiB", "M"], 1 << 20), (["KiB", "K"], 1 << 10), (["B"], 1)] {
            if let suffix = suffixes.first(where: { digits.uppercased().hasSuffix($0.uppercased()) }) {
                digits = digits.dropLast(suffix.count)
                multiplier = factor
                break
            }
        }
        guard let value = Int(digits), value >= 0, value <= Int.max / multiplier else { return nil }
        bytes = value * multiplier
    }

    /// The shortest exact form: `64MiB`, `4KiB`, `1000`.
    var description: String {
        for (suffix, factor) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes >= factor && bytes % factor == 0 {
            return "\(bytes / factor)\(suffix)"
        }
        return "\(bytes)"
    }
}
