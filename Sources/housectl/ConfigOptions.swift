import ArgumentParser
import HouseCore

/// `--config PATH`, shared by every subcommand.
struct ConfigOptions: ParsableArguments {
    @Option(name: .long, help: "The house configuration file.")
    var config: String = "config/house.yaml"

    @Option(name: .customLong("devices-dir"), help: "Directory of relay-board profiles (default: devices/ next to the config's directory).")
    var devices: String?

    @Option(name: .customLong("grammar-dir"),
            help: "Directory of the community grammar's language files, <language>.json (default: HOUSECTL_GRAMMAR_DIR, .cache/intents/VERSION next to the config's directory, or share/housectl/intents/VERSION beside the binary's).")
    var grammar: String?

    /// The phrase files beside the configuration, `extra` ones, and the grammar of `language`.
    func phrases(extra: [String] = [], language: String, ours: Bool = true) throws -> PhraseFiles.Loaded {
        try PhraseFiles.load(configPath: config, extra: extra, language: language, grammarDirectory: grammar, ours: ours)
    }

    /// Loads the configuration, or returns the located errors as text.
    func load(path: String? = nil) -> Result<HouseConfiguration, ConfigurationError> {
        Result { () throws(ConfigurationError) in
            try ConfigurationLoader(devicesDirectory: devices).load(path: path ?? config)
        }
    }
}

extension ConfigOptions {
    /// Loads the configuration and prints what `make` reports about it; any error goes to
    /// standard error with exit status 1.
    func report(_ make: (HouseConfiguration) throws -> String) -> CommandOutput {
        switch load() {
        case .failure(let error):
            return CommandOutput(text: "", exitCode: 1, errors: error.description)
        case .success(let configuration):
            do {
                let text = try make(configuration)
                return CommandOutput(text: text.hasSuffix("\n") ? String(text.dropLast()) : text, exitCode: 0)
            } catch {
                return CommandOutput(text: "", exitCode: 1, errors: "\(error)")
            }
        }
    }
}

/// What a subcommand prints and the exit code it ends with; `run()` prints it, tests read it.
struct CommandOutput: Equatable {
    var text: String
    var exitCode: Int32
    /// Text for standard error (errors), printed before `text`.
    var errors: String = ""

    func emit() throws {
        if !errors.isEmpty { FileHandleOutput.standardError(errors) }
        if !text.isEmpty { print(text) }
        if exitCode != 0 { throw ExitCode(exitCode) }
    }
}
