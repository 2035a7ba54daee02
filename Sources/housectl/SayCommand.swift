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

            A floor (floors: in house.yaml): "turn off the upstairs lights", "is anything on on \
            the ground floor", "night mode upstairs".

            A cover (kind: cover: a shutter, blind or curtain with a motor): "open the blinds", \
            "put the shutters down", "set the blinds to 40%", "open the shutter halfway", "stop \
            the shutter", "is the shutter open".

            A mode, for the house or a room, for a while or until changed: "movie mode", "set the \
            living room to movie mode for 2 hours", "we're going out for two hours".

            A question: "is the kitchen light on", "what's on in the bedroom", "how many lights \
            are on upstairs", "what mode is the house in", "how much energy did the heater use \
            today", "how much power is the house using right now".

            What a relay cannot do is answered with what it can: "dim the lights" says they \
            only switch on and off; nothing is switched.

            A routine by its shortcut: "good morning house", "good night house".

            Several at once, joined with "and": "movie mode and turn off the kitchen light".

            \(ExitStatus.help)

            Where you are: --room R (or, over MQTT, "context_room" in the request) answers \
            "which room?" before it is asked: "turn off the lights", "turn on the light in \
            here" and "turn everything off in here" then mean that room's. A device only \
            another room has is still found there. Without --room, the room of this machine's \
            node (nodes: [{id, room}] in house.yaml; the node named like this host) is used.

            Many phrases at once: with --dry-run, - reads one phrase per line from standard \
            input and writes one line per phrase (with --json a JSON object: text, status, \
            answer, commands, steps) in one process, for scripts and tests. A line \
            "ROOM<TAB>phrase" says the room it is said in.

            Examples:
              housectl say "bedroom lights off"
              housectl say "open the garage door" --yes
              housectl say "movie mode and turn off the kitchen light" --dry-run
              printf 'hall light on\\nwhat mode is the house in\\n' | housectl say - --dry-run --json
            """
    )

    @Argument(help: "What to say, in quotes; - reads one phrase per line from standard input (with --dry-run).") var text: String
    @Option(help: "Answer a question: PARAMETER=OPTION (e.g. device=bedroom-bedside-lamp).") var choose: [String] = []
    @Flag(help: "Say yes to a confirmation question.") var yes = false
    @Option(help: "The room you are in (id, name or alias): \"turn off the lights\" and \"the light in here\" then mean its.")
    var room: String?
    @Flag(help: "Understand and resolve here, print the trace, carry out nothing.") var dryRun = false
    @Flag(help: "Print JSON for machines.") var json = false
    @Option(help: "Phrase templates to add to config/phrases.yaml (Home Assistant sentence syntax); repeatable.")
    var phrases: [String] = []
    @OptionGroup var options: ConfigOptions
    @OptionGroup var client: ClientOptions
    /// This machine's name, which picks its node (and so its room); tests set it.
    var hostName = ProcessInfo.processInfo.hostName

    func execute(interactive: Bool = false) async throws -> CommandOutput {
        let configuration: HouseConfiguration
        switch options.load() {
        case .success(let c): configuration = c
        case .failure(let e): return CommandOutput(text: "", exitCode: 1, errors: e.description)
        }
        var answers = try IntentRunner.answers(choose: choose, yes: yes)
        if let room {
            guard let known = configuration.room(matching: room) else {
                let rooms = configuration.rooms.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
                return CommandOutput(text: "", exitCode: 1, errors: "housectl say: --room: unknown room '\(room)'; the rooms are: \(rooms)")
            }
            answers.contextRoom = known.id.rawValue
        } else {
            // Said at a node that stands in a room (nodes: [{id, room}]): that room.
            answers.contextRoom = configuration.localNode(hostName: hostName)?.room?.rawValue
        }
        if text == "-" {
            guard dryRun else {
                return CommandOutput(text: "", exitCode: 1, errors: "housectl say: reading phrases from standard input (-) needs --dry-run")
            }
            return await batch(configuration, engine: try dryRunEngine(configuration), answers: answers)
        }
        if dryRun {
            return await dryRunOutput(text, engine: try dryRunEngine(configuration), answers: answers, oneLine: false)
        }
        var text = text
        while true {
            let reply: IntentReply
            do {
                reply = try await client.request(.text(text), configuration: configuration, answers: answers)
            } catch {
                return CommandOutput(text: "", exitCode: ExitStatus.noController.rawValue, errors: error.description)
            }
            guard interactive, let next = ask(reply, answers: answers) else { return client.render(reply, json: json) }
            answers = next
            // Only the command the question was about goes again: the others are done.
            if let pending = reply.pendingText { text = pending }
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

    /// The batch mode: one phrase per line of standard input, one answer line each. A line
    /// "ROOM<TAB>phrase" gives the speaker's room; an unknown room is answered as an error.
    private func batch(_ configuration: HouseConfiguration, engine: HouseEngine, answers: IntentAnswers) async -> CommandOutput {
        // One engine for every line: a dry run changes no state.
        var lines = 0
        while let line = readLine() {
            var lineAnswers = answers
            var phrase = line
            if let tab = line.firstIndex(of: "\t") {
                let room = String(line[..<tab]).trimmingCharacters(in: .whitespaces)
                phrase = String(line[line.index(after: tab)...]).trimmingCharacters(in: .whitespaces)
                guard let known = configuration.room(matching: room) else {
                    let message = "unknown room '\(room)'; the rooms are: \(configuration.rooms.map(\.id).joined(separator: ", "))"
                    let error = BatchLine(text: phrase, status: "error", answer: message, commands: [], steps: [])
                    print(json ? error.json : "\(phrase)\terror\t\(message)")
                    lines += 1
                    continue
                }
                lineAnswers.contextRoom = known.id.rawValue
            }
            phrase = phrase.trimmingCharacters(in: .whitespaces)
            guard !phrase.isEmpty else { continue }
            print(await dryRunOutput(phrase, engine: engine, answers: lineAnswers, oneLine: true).text)
            lines += 1
        }
        return CommandOutput(text: "", exitCode: lines == 0 ? 1 : 0, errors: lines == 0 ? "housectl say: no phrases on standard input" : "")
    }

    /// The engine a dry run goes through: the configuration and the phrases, no relays.
    private func dryRunEngine(_ configuration: HouseConfiguration) throws -> HouseEngine {
        let loaded = try options.phrases(extra: phrases, language: configuration.house.language)
        let matcher = try PhraseMatcher(phraseSet: loaded.phraseSet, house: configuration)
        return HouseEngine(configuration: configuration, matcher: matcher)
    }

    /// Understands and resolves `text` in-process, printing each command's trace; `oneLine`
    /// (the batch mode): one line, a compact JSON object with --json.
    private func dryRunOutput(_ text: String, engine: HouseEngine, answers: IntentAnswers, oneLine: Bool) async -> CommandOutput {
        let run = await engine.process(phrase: text, source: .cli, answers: answers, dryRun: true)
        var texts: [String] = []
        for step in run.steps {
            texts.append("\"\(step.text)\" -> \(step.candidate.summary)")
            texts.append(IntentTrace(step.outcome).text)
            if let hint = IntentRunner.hint(step.outcome) { texts.append(hint) }
        }
        let traces = run.steps.map { IntentTrace($0.outcome) }
        var status = run.steps.last.map { ExitStatus($0.outcome.status) } ?? .done
        switch run.end {
        case .processed:
            break
        case .notUnderstood(let message):
            if oneLine {
                let line = BatchLine(text: text, status: "notUnderstood", answer: message, commands: [], steps: [])
                return CommandOutput(text: json ? line.json : "\(text)\tnotUnderstood\t\(message)", exitCode: ExitStatus.refused.rawValue)
            }
            return CommandOutput(text: json ? IntentReply(id: "dry-run", error: message).json : message, exitCode: ExitStatus.refused.rawValue)
        case .dismissed:
            texts.append("\"\(text)\": never mind, nothing done")
        case .needsPhraseChoice(let phrase, let question, let options):
            let list = options.map { "  \($0.id): \($0.label)" }.joined(separator: "\n")
            texts.append("\"\(phrase)\": \(question)\n\(list)\n(answer with --choose phrase=0)")
            status = .needsChoice
        }
        if oneLine {
            var answer = run.steps.map(\.outcome.dialog).joined(separator: " ")
            if case .needsPhraseChoice(_, let question, _) = run.end { answer += (answer.isEmpty ? "" : " ") + question }
            var lineStatus = run.steps.last?.outcome.status.rawValue ?? "notUnderstood"
            if case .needsPhraseChoice = run.end { lineStatus = "needsChoice" }
            if case .dismissed = run.end { lineStatus = "done" }
            let line = BatchLine(text: text, status: lineStatus, answer: answer,
                                 commands: run.steps.flatMap { $0.outcome.commands.map(\.description) }, steps: traces)
            return CommandOutput(text: json ? line.json : "\(text)\t\(line.status)\t\(answer)", exitCode: status.rawValue)
        }
        if json { return CommandOutput(text: JSONOutput.encode(traces), exitCode: status.rawValue) }
        return CommandOutput(text: texts.joined(separator: "\n"), exitCode: status.rawValue)
    }

    /// One phrase's answer in the batch mode.
    struct BatchLine: Encodable {
        var text: String
        /// done, needsValue, needsChoice, needsConfirmation, unsupported, refused, notUnderstood...
        var status: String
        var answer: String
        /// The commands that would be issued, for every step.
        var commands: [String]
        var steps: [IntentTrace]

        /// Compact JSON on one line.
        var json: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }
    }
}
