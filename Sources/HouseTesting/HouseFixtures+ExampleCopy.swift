import Foundation

extension HouseFixtures {
    /// What a copy of the example house keeps of its routines.
    public enum ExampleRoutines: Sendable {
        /// The whole `routines:` section is left out (a test adds routines of its own).
        case removed
        /// The routines stay with their relevance windows; their planned runs (`run_at`,
        /// `jitter`, `catch_up`) are left out.
        case withoutRuns
    }

    /// The text of config/house.yaml for a `housectl serve` that a test or the bench starts: the
    /// embedded broker on `mqttPort` (nil: as it is), and no routine that runs by itself, so
    /// nothing the daemon does depends on the hour it starts at (between 06:30 and 09:00 on a
    /// weekday the morning routine catches up at start-up and sets the house's morning mode).
    public static func exampleHouseText(root: String = repositoryRoot, mqttPort: Int? = nil,
                                        routines: ExampleRoutines) throws -> String {
        let text = try String(contentsOfFile: root + "/config/house.yaml", encoding: .utf8)
        var kept: [Substring] = []
        var inRoutines = false
        var portReplaced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let first = line.first, first != " ", first != "#", first != "-" {
                inRoutines = line.hasPrefix("routines:")
            }
            if inRoutines {
                switch routines {
                case .removed:
                    continue
                case .withoutRuns:
                    let key = line.drop { $0 == " " || $0 == "-" }
                    if ["run_at:", "jitter:", "catch_up:"].contains(where: { key.hasPrefix($0) }) { continue }
                }
            }
            if let mqttPort, !portReplaced, line == "  port: 1883" {
                kept.append("  port: \(mqttPort)")
                portReplaced = true
                continue
            }
            kept.append(line)
        }
        let copy = kept.joined(separator: "\n")
        if mqttPort != nil && !portReplaced {
            throw FixtureError("config/house.yaml: no `  port: 1883` under mqtt to replace")
        }
        if case .withoutRuns = routines, copy.contains("run_at") {
            throw FixtureError("config/house.yaml: a routine's `run_at` is not on a line of its own; the copy would still run it")
        }
        return copy
    }

    /// A fixture that does not fit what the copy expects of config/house.yaml.
    public struct FixtureError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
