import ArgumentParser
import Foundation
import HouseCore

/// `housectl config check [PATH]`: a summary of what loaded, or every error located and exit 1.
struct ConfigCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a configuration: print a summary, or every error as file:line:column and exit 1."
    )

    @Argument(help: "The configuration file (default: --config, config/house.yaml).")
    var path: String?

    @OptionGroup var options: ConfigOptions

    @Flag(name: .long, help: "Print JSON for machines.")
    var json = false

    func execute() -> CommandOutput {
        let file = path ?? options.config
        switch options.load(path: file) {
        case .success(let config):
            let phrases: String
            do { phrases = try options.phrases(language: config.house.language).grammar } catch {
                return CommandOutput(text: "", exitCode: 1, errors: "\(error)")
            }
            if json {
                return CommandOutput(text: JSONOutput.encode(ConfigCheckReport(file: file, ok: true, summary: config.summary, phrases: phrases, errors: [])), exitCode: 0)
            }
            // What housectl's file beside it added, when there is one.
            let accepted = AcceptedFile.path(forConfigAt: file), answers = config.suggestions.answers
            let with = FileManager.default.fileExists(atPath: accepted)
                ? " (with \(accepted): \(answers.accepted.count) accepted, \(answers.dismissed.count) dismissed)" : ""
            return CommandOutput(text: "\(file): OK\(with)\n" + config.summary + "\nphrases: " + phrases, exitCode: 0)
        case .failure(let error):
            if json {
                let errors = error.diagnostics.map {
                    ConfigCheckReport.Diagnostic(file: $0.file, line: $0.line, column: $0.column, message: $0.message)
                }
                return CommandOutput(text: JSONOutput.encode(ConfigCheckReport(file: file, ok: false, summary: nil, phrases: nil, errors: errors)), exitCode: 1)
            }
            return CommandOutput(text: "", exitCode: 1, errors: error.description)
        }
    }

    func run() async throws { try execute().emit() }
}

/// `config check --json`.
struct ConfigCheckReport: Encodable {
    struct Diagnostic: Encodable {
        var file: String
        var line: Int
        var column: Int
        var message: String
    }

    var file: String
    var ok: Bool
    var summary: String?
    /// Which phrases load: our own, and the community grammar's file or why there is none.
    var phrases: String?
    var errors: [Diagnostic]
}
