import Foundation

/// One row of the benchmark table.
struct BenchRow: Sendable {
    var name: String
    var ours: String
    var peer: String
    var ratio: String
    var goal: String
    /// "yes", "NO", or "n/a".
    var met: String
    /// A note printed under the table.
    var note: String? = nil

    static func unavailable(_ name: String, goal: String, why: String) -> BenchRow {
        BenchRow(name: name, ours: "n/a", peer: "n/a", ratio: "n/a", goal: goal, met: "n/a", note: "\(name): \(why)")
    }
}

/// Prints rows as a Markdown table (readable in a terminal and pasteable into docs/BENCHMARKS.md).
func renderTable(_ rows: [BenchRow]) -> String {
    let header = ["row", "ours", "peer", "ratio", "goal", "met?"]
    let cells = rows.map { [$0.name, $0.ours, $0.peer, $0.ratio, $0.goal, $0.met] }
    var widths = header.map(\.count)
    for r in cells { for (i, c) in r.enumerated() { widths[i] = Swift.max(widths[i], c.count) } }
    func line(_ r: [String]) -> String {
        "| " + r.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |"
    }
    var out = [line(header), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"]
    out += cells.map(line)
    let notes = rows.compactMap(\.note)
    if !notes.isEmpty { out.append(""); out += notes.map { "- " + $0 } }
    return out.joined(separator: "\n")
}
