import ArgumentParser
import HouseCore

/// Runs an intent through the pipeline in-process for the dry-run subcommands, and renders the trace.
enum IntentRunner {
    static func run(_ intent: HouseIntent, options: ConfigOptions, source: IntentSource, answers: IntentAnswers,
                    dryRun: Bool, json: Bool, client: ClientOptions = ClientOptions()) async -> CommandOutput {
        let config: HouseConfiguration
        switch options.load() {
        case .success(let c): config = c
        case .failure(let e): return CommandOutput(text: "", exitCode: 1, errors: e.description)
        }
        guard dryRun else {
            return await client.send(.intent(intent), configuration: config, answers: answers, json: json)
        }
        let outcome = await HouseEngine(configuration: config).process(intent, source: source, answers: answers, dryRun: true)
        let trace = IntentTrace(outcome)
        var text = json ? JSONOutput.encode(trace) : trace.text
        if !json, let hint = hint(outcome) { text += "\n" + hint }
        return CommandOutput(text: text, exitCode: exitCode(outcome.status))
    }

    /// How to answer the question from the command line.
    static func hint(_ outcome: IntentOutcome) -> String? {
        switch outcome.status {
        case .needsChoice:
            let p = outcome.pendingParameter ?? "?"
            return "(answer with --choose \(p)=\(outcome.options.first?.id ?? "ID"))"
        case .needsConfirmation: return "(answer yes with --yes)"
        default: return nil
        }
    }

    static func exitCode(_ status: IntentOutcome.Status) -> Int32 { ExitStatus(status).rawValue }

    /// `--choose room=bedroom` pairs.
    static func answers(choose: [String], yes: Bool) throws -> IntentAnswers {
        var a = IntentAnswers(confirmed: yes)
        for c in choose {
            let parts = c.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--choose takes PARAMETER=OPTION (e.g. device=bedroom-bedside-lamp), not '\(c)'")
            }
            a.choices[parts[0]] = parts[1]
        }
        return a
    }
}

extension HouseAction: ExpressibleByArgument {}
extension IntentSource: ExpressibleByArgument {}
