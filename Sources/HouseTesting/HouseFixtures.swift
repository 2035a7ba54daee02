import Foundation
import HouseCore

/// Paths into the repository and the example house, for tests.
public enum HouseFixtures {
    /// The package root (found from this source file's location).
    public static let repositoryRoot: String = {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }()

    /// `config/house.yaml`.
    public static var exampleConfigPath: String { repositoryRoot + "/config/house.yaml" }

    /// `devices/`, the shipped board profiles.
    public static var devicesDirectory: String { repositoryRoot + "/devices" }

    /// `Tests/Fixtures/broken-house.yaml`: a copy of the house with one of every kind of error.
    /// (Fixtures live outside the test targets so SwiftPM needs no resource declarations.)
    public static var brokenConfigPath: String { repositoryRoot + "/Tests/Fixtures/broken-house.yaml" }

    /// The example house, loaded and validated.
    public static func exampleConfiguration() throws -> HouseConfiguration {
        try ConfigurationLoader().load(path: exampleConfigPath)
    }

    /// The example house with other routines: `routines` replaces the lines of house.yaml's
    /// `routines:` section (items indented by two spaces).
    public static func exampleConfiguration(routines: String) throws -> HouseConfiguration {
        let yaml = try String(contentsOfFile: exampleConfigPath, encoding: .utf8)
        guard let from = yaml.range(of: "\nroutines:\n"), let to = yaml.range(of: "\nrules:\n", range: from.upperBound..<yaml.endIndex) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return try ConfigurationLoader().load(yaml: yaml.replacingCharacters(in: from.upperBound..<to.lowerBound, with: routines),
                                              file: exampleConfigPath, boards: boards())
    }

    /// Routines for `exampleConfiguration(routines:)` that set the house's mode every day: morning
    /// at 06:30, evening for 2 hours at 18:00, night at 22:00.
    public static let everyDayModeRoutines = """
          - id: good-morning
            shortcut: Good morning house
            relevant: {from: "06:00", to: "09:00", days: daily}
            run_at: "06:30"
            intent: {mode: morning}
          - id: dinner
            shortcut: Dinner time
            run_at: "18:00"
            intent: {mode: evening, duration: 2h}
          - id: bedtime
            shortcut: Bedtime
            run_at: "22:00"
            intent: {mode: night}
        """

    /// The shipped board profiles by id.
    public static func boards() -> [String: BoardProfile] {
        ConfigurationLoader.loadBoards(directory: devicesDirectory).boards
    }

    /// Loads `yaml` (as `test.yaml`, with the shipped board profiles) and returns its problems as
    /// `line:column: message`; nil when it is accepted.
    public static func configurationErrors(_ yaml: String) -> [String]? {
        do {
            _ = try ConfigurationLoader().load(yaml: yaml, file: "test.yaml", boards: boards())
            return nil
        } catch {
            return error.diagnostics.map { "\($0.line):\($0.column): \($0.message)" }
        }
    }

    /// The community grammar's file of `language`, as `make` fetches it (scripts/intents-data.sh,
    /// into .cache/intents/VERSION); nil when it is not there, except in CI (`CI=true`), where
    /// a missing grammar is an error, not a skip.
    public static func grammar(_ language: String = "en") throws -> CommunityGrammar? {
        let file = grammarFile(language)
        guard FileManager.default.fileExists(atPath: file.path) else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                throw PhraseError.invalidFile(source: file.path, message: "missing: scripts/intents-data.sh fetches it (make test does)")
            }
            return nil
        }
        return try CommunityGrammar.load(contentsOf: file)
    }

    /// Where `make` puts the community grammar's file of `language` (it may not be there).
    public static func grammarFile(_ language: String) -> URL {
        CommunityGrammar.file(language: language, in: URL(fileURLWithPath: repositoryRoot + "/.cache/intents/\(CommunityGrammar.version)"))
    }

    /// `config/phrases.yaml` with the English community grammar when it is there: what the
    /// daemon reads for the example house.
    public static func phrases() throws -> PhraseSet {
        let ours = try PhraseSet.load(contentsOf: URL(fileURLWithPath: repositoryRoot + "/config/phrases.yaml"))
        return try grammar().map { ours.merging($0.phraseSet) } ?? ours
    }
}
