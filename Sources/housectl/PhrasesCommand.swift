import ArgumentParser
import Foundation
import HouseCore

/// `housectl phrases`: how the house reads a phrase (its intent and slots), without acting.
struct PhrasesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phrases",
        abstract: "Show how phrases are read: the intent and slots each one matches, and where its template comes from.",
        discussion: """
            Reads the phrase templates as the daemon does: config/phrases.yaml (and --phrases \
            files), then the community grammar of house.language (home-assistant-intents; \
            `config check` says which file). Nothing is switched and no daemon is needed; \
            `housectl say --dry-run` goes further and resolves the phrase against the house.

            Examples:
              housectl phrases "turn on the kitchen light"
              printf 'schalte das Licht in der Küche ein\\n' | housectl phrases - --json
            """
    )

    @Argument(help: "A phrase in quotes; - reads one phrase per line from standard input.") var text: String?
    @Flag(help: "Print one JSON object per phrase: text, intent (null when nothing matched), slots, template, grammar.")
    var json = false
    @Option(help: "The room the phrases are said in (id, name or alias): a template that takes the room from where it is said reads it as its area, as Home Assistant does for a voice satellite.")
    var room: String?
    @Flag(help: "Read with the community grammar alone, without config/phrases.yaml (as Home Assistant's hassil reads).")
    var grammarOnly = false
    @Flag(help: "Print the lists the house gives the community grammar (name with each device's domain, area, floor) as JSON, for hassil.")
    var lists = false
    @Option(help: "Phrase templates to add to config/phrases.yaml (Home Assistant sentence syntax); repeatable.")
    var phrases: [String] = []
    @OptionGroup var options: ConfigOptions

    func execute(lines: () -> String? = { readLine() }) throws -> CommandOutput {
        let configuration: HouseConfiguration
        switch options.load() {
        case .success(let c): configuration = c
        case .failure(let e): return CommandOutput(text: "", exitCode: 1, errors: e.description)
        }
        var here: String? = nil
        if let room {
            guard let known = configuration.room(matching: room) else {
                let rooms = configuration.rooms.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
                return CommandOutput(text: "", exitCode: 1, errors: "housectl phrases: --room: unknown room '\(room)'; the rooms are: \(rooms)")
            }
            here = known.name
        }
        if lists { return CommandOutput(text: String(decoding: CommunityGrammar.hassilLists(for: configuration, saidIn: here), as: UTF8.self), exitCode: 0) }
        guard let text else { return CommandOutput(text: "", exitCode: 1, errors: "housectl phrases: say a phrase, or - to read them from standard input") }
        let loaded = try options.phrases(extra: phrases, language: configuration.house.language, ours: !grammarOnly)
        let matcher = try PhraseMatcher(phraseSet: loaded.phraseSet, house: configuration)
        var texts: [String] = []
        if text == "-" {
            while let line = lines() {
                let phrase = line.trimmingCharacters(in: .whitespaces)
                if !phrase.isEmpty { texts.append(phrase) }
            }
        } else {
            texts = [text]
        }
        var out: [String] = []
        var unmatched = 0
        for phrase in texts {
            var best = matcher.bestCandidate(phrase)
            if best == nil { unmatched += 1 }
            if let here, let b = best, b.fromGrammar, b.slots["here"] == "true" {
                best?.slotList = (b.slotList.filter { $0.name != "here" } + [PhraseSlot(name: "area", value: here)]).sorted { $0.name < $1.name }
            }
            // Our own slots on the grammar's templates (what "open {name}" opens, its answer) are not the grammar's.
            best?.slotList.removeAll { $0.name == CommunityGrammar.domainSlot || $0.name == CommunityGrammar.responseSlot }
            if json {
                out.append(JSONOutput.encode(Reading(text: phrase, intent: best?.intentName, slots: best?.slots ?? [:],
                                                     template: best?.template, grammar: best?.fromGrammar ?? false), pretty: false))
            } else if let best {
                let slots = best.slotList.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
                out.append("\(phrase)\t\(best.intentName) \(slots)\t(\(best.fromGrammar ? "grammar" : "ours"): \(best.template))")
            } else {
                out.append("\(phrase)\tno match")
            }
        }
        return CommandOutput(text: out.joined(separator: "\n"), exitCode: texts.count == 1 && unmatched == 1 ? 1 : 0)
    }

    func run() async throws { try execute().emit() }

    /// One phrase's reading, for --json.
    struct Reading: Encodable {
        var text: String
        var intent: String?
        var slots: [String: String]
        var template: String?
        var grammar: Bool
    }
}
