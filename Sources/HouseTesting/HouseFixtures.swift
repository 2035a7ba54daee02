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
}
