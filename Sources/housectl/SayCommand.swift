import ArgumentParser
import Foundation
import HouseDaemon
#if canImport(Glibc)
import Glibc
#endif

/// `housectl say "TEXT"`: a shortcut phrase, carried out by the running controller.
struct SayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "say",
        abstract: "Say a phrase to the house: \"turn off the lights in the bedroom\", \"good morning house\".",
        discussion: """
            The controller (`housectl serve`) understands the phrase, asks what it needs to know, \
            and carries it out. On a terminal its questions are asked here and the answers sent \
            back; otherwise the question is printed and the exit status says what kind of answer \
            is needed. --dry-run understands and resolves the phrase here, against the \
            configuration, and only prints what would happen.

            What you can say (config/phrases.yaml holds every template; --phrases adds your own):

            A device, by its name, with or without its room: "turn on the kitchen light", \
            "bedroom lamp off", "switch the fan in the office on", "toggle the hall light", \
            "open the garage door". A device marked confirm: true asks first; --yes answers.

            Every device of a name or kind: "turn off all the lights in the kitchen", "bedroom \
            lamps off", "turn everything off in the living room".

            A mode, for the house or a room, for a while or until changed: "movie mode", "set the \
            living room to movie mode for 2 hours", "we're going out for two hours".

            A question: "is the kitchen light on", "what's on in the bedroom", "what mode is the \
            house in", "how much energy did we use today".

            A routine by its shortcut: "good morning house", "good night house".

            Several at once, joined with "and": "movie mode and turn off the kitchen light".

            \(ExitStatus.help)

            Examples:
              housectl say "bedroom lights off"
              housectl say "open the garage door" --yes
              housectl say "movie mode and turn off the kitchen light" --dry-run
            """
    )

    @Argument(help: "What to say, in quotes.") var text: String
    @Option(help: "Answer a question: PARAMETER=OPTION (e.g. device=bedroom-bedside-lamp).") var choose: [String] = []
    @Flag(help: "Say yes to a confirmation question.") var yes = false
    @Flag(help: "Understand and resolve here, print the trace, carry out nothing.") var dryRun = false
    @Flag(help: "Print JSON for machines.") var json = false
    @Option(help: "Phrase templates to add to config/phrases.yaml (Home Assistant sentence syntax); repeatable.")
    var phrases: [String] = []
    @OptionGroup var options: ConfigOptions
    @OptionGroup var client: ClientOptions

    func execute(interactive: Bool = false) async throws -> CommandOutput {
        let configuration: HouseConfiguration
        switch options.load() {
        case .success(let c): configuration = c
        case .failure(let e): return CommandOutput(text: "", exitCode: 1, errors: e.description)
        }
        var answers = try IntentRunner.answers(choose: choose, yes: yes)
        if dryRun { return try await dryRunOutput(configuration, answers: answers) }
        while true {
            let reply: IntentReply
            do {
                reply = try await client.request(.text(text), configuration: configuration, answers: answers)
            } catch {
                return CommandOutput(text: "", exitCode: ExitStatus.noController.rawValue, errors: error.description)
            }
            guard interactive, let next = ask(reply, answers: answers) else { return client.render(reply, json: json) }
            answers = next
        }
    }

    func run() async throws {
        let interactive = !json && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        try await execute(interactive: interactive).emit()
    }

    /// Asks the reply's question on the terminal; the answers to send again, or nil to stop.
    private func ask(_ reply: IntentReply, answers: IntentAnswers) -> IntentAnswers? {
        switch ExitStatus(reply: reply.status) {
        case .needsConfirmation:
            print((reply.question ?? reply.dialog) + " [y/N] ", terminator: "")
            guard let line = readLine(), ["y", "yes"].contains(line.lowercased().trimmingCharacters(in: .whitespaces)) else { return nil }
            return answers.confirming
        case .needsChoice:
            print(reply.question ?? reply.dialog)
            for (i, o) in reply.options.enumerated() { print("  \(i + 1). \(o.label)") }
            print("Choose 1-\(reply.options.count): ", terminator: "")
            guard let parameter = reply.pendingParameter, let line = readLine(),
                  let n = Int(line.trimmingCharacters(in: .whitespaces)), reply.options.indices.contains(n - 1) else { return nil }
            return answers.choosing(reply.options[n - 1].id, for: parameter)
        case .needsValue:
            print((reply.question ?? reply.dialog) + " ", terminator: "")
            guard let parameter = reply.pendingParameter, let line = readLine(), !line.isEmpty else { return nil }
            return answers.choosing(line.trimmingCharacters(in: .whitespaces), for: parameter)
        default:
            return nil
        }
    }

    /// Understands and resolves the phrase in-process, printing each command's trace.
    private func dryRunOutput(_ configuration: HouseConfiguration, answers: IntentAnswers) async throws -> CommandOutput {
        let matcher = try PhraseMatcher(phraseSet: try PhraseFiles.load(configPath: options.config, extra: phrases), house: configuration)
        let interpretation = matcher.interpret(text)
        if let message = interpretation.message {
            return CommandOutput(text: json ? IntentReply(id: "dry-run", error: message).json : message, exitCode: ExitStatus.refused.rawValue)
        }
        let service = HouseService(configuration: configuration)
        let pipeline = IntentPipeline(service: service)
        var texts: [String] = []
        var traces: [IntentTrace] = []
        var status = ExitStatus.done
        for command in interpretation.commands {
            var candidate = command.best
            if command.isAmbiguous {
                if let chosen = answers.choices["phrase"], let i = Int(chosen), command.tied.indices.contains(i) {
                    candidate = command.tied[i]
                } else {
                    let options = command.tied.enumerated().map { "  \($0.offset): \($0.element.summary)" }.joined(separator: "\n")
                    texts.append("\"\(command.text)\": \(command.disambiguationQuestion ?? "which did you mean?")\n\(options)\n(answer with --choose phrase=0)")
                    status = .needsChoice
                    break
                }
            }
            guard let intent = candidate.intent else { continue }
            texts.append("\"\(command.text)\" -> \(candidate.summary)")
            let outcome = await pipeline.process(intent, source: .cli, answers: answers, dryRun: true)
            let trace = IntentTrace(outcome)
            traces.append(trace)
            texts.append(trace.text)
            if let hint = IntentRunner.hint(outcome) { texts.append(hint) }
            status = ExitStatus(outcome.status)
            if status != .done { break }
        }
        if json { return CommandOutput(text: JSONOutput.encode(traces), exitCode: status.rawValue) }
        return CommandOutput(text: texts.joined(separator: "\n"), exitCode: status.rawValue)
    }
}
