import Foundation
import HouseCore

/// The relay listing of `housectl relays`: channel, line, device, active-low, holder, and the
/// logical and physical values where they can be read without touching the line.
public enum RelayTable {
    /// One row per relay channel of the layout.
    public struct Row: Sendable, Equatable {
        public var channel: Int
        public var line: Int
        public var device: DeviceID
        public var activeLow: Bool
        /// Who holds the line (`housectl`, another program), `nil` when free.
        public var holder: String?
        public var logical: Bool?
        public var physical: Bool?
        /// Why the line could not be read, if it could not.
        public var problem: String?
    }

    /// Reads every relay line of `layout` on `chip`.
    public static func rows(layout: RelayLayout, chip: any GPIOChip) -> [Row] {
        layout.channels.map { c in
            do {
                let info = try chip.info(line: c.line)
                // The physical level follows from the logical one and the layout's active-low,
                // which is what the relay board sees even when the line is released.
                let logical = info.physicalValue.map { $0 != c.activeLow }
                return Row(channel: c.channel, line: c.line, device: c.device, activeLow: c.activeLow,
                           holder: info.consumer, logical: logical, physical: info.physicalValue)
            } catch {
                return Row(channel: c.channel, line: c.line, device: c.device, activeLow: c.activeLow,
                           holder: nil, logical: nil, physical: nil, problem: "\(error)")
            }
        }
    }

    /// The rows as an aligned text table.
    public static func render(_ rows: [Row], chip: any GPIOChip) -> String {
        var table: [[String]] = [["CH", "LINE", "DEVICE", "ACTIVE", "HOLDER", "LOGICAL", "PHYSICAL"]]
        for r in rows {
            table.append([
                "\(r.channel)", "\(r.line)", r.device.rawValue, r.activeLow ? "low" : "high", r.holder ?? "-",
                r.logical.map { $0 ? "ON" : "OFF" } ?? "?", r.physical.map { $0 ? "high" : "low" } ?? "?",
            ])
        }
        let widths = (0..<table[0].count).map { col in table.map { $0[col].count }.max() ?? 0 }
        var out = "chip \(chip.name) (\(chip.label), \(chip.lineCount) lines)\n"
        for row in table {
            out += zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingTrailingSpaces() + "\n"
        }
        for r in rows where r.problem != nil { out += "channel \(r.channel): \(r.problem!)\n" }
        return out
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
