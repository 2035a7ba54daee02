import ArgumentParser
import HouseCore

/// `--config PATH`, shared by every subcommand.
struct ConfigOptions: ParsableArguments {
    @Option(name: .long, help: "The house configuration file.")
    var config: String = "config/house.yaml"

    @Option(name: .customLong("devices-dir"), help: "Directory of relay-board profiles (default: devices/ next to the config's directory).")
    var devices: String?

    /// Loads the configuration, or returns the located errors as text.
    func load(path: String? = nil) -> Result<HouseConfiguration, ConfigurationError> {
        Result { () throws(ConfigurationError) in
            try ConfigurationLoader(devicesDirectory: devices).load(path: path ?? config)
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
