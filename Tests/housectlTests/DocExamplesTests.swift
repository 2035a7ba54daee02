import ArgumentParser
import Foundation
import HouseCore
import HouseDaemon
import HouseTesting
import Testing
import Yams
@testable import housectl

// Every example in README.md and docs/*.md is run here, so the docs cannot drift.
//
// The convention (also written at the top of docs/CONFIG.md):
// - ```console  a shell session. `$ housectl ...` lines are parsed with the real command types and
//               run in-process: offline forms at once, forms that need the controller (say without
//               --dry-run, status, history, control/mode set without --dry-run) against an
//               in-process controller, in document order. `serve` and `broker` are only parsed.
//               The lines under a command are its expected output, compared line by line
//               (`...` skips any number of lines). `# exit N` after a command: expected exit code.
//               `$ mosquitto_pub` payloads are parsed with the daemon's payload parsers for their
//               topic (`# malformed`: the parser must refuse it), then sent to an in-process
//               controller in document order: a request that gets a reply must get one, an error
//               exactly when malformed. `$ mosquitto_sub` filters are checked. No other command
//               may appear in a console block.
// - ```yaml test-house     a complete house.yaml; must load without errors.
// - ```yaml test-fragment  part of a house.yaml, merged into config/house.yaml (list items replace
//                          those with the same id, or are added); must load without errors.
// - ```yaml test-invalid   a fragment merged the same way that must be REFUSED.
// - ```yaml test-accepted  a house.accepted.yaml, read with config/house.yaml; must load without errors.
// - ```yaml test-board     a relay-board profile (devices/<id>.yaml).
// - ```yaml test-phrases   a phrase file, added to config/phrases.yaml for the example house.
// - ```json                must be valid JSON; ```json reply must decode as the controller's reply.
// Every yaml block must carry one of these markers, and `housectl` / `mosquitto_pub` may only
// appear in console blocks.

/// A fenced code block of a document.
struct DocBlock: Sendable, CustomStringConvertible {
    var file: String
    /// 1-based line of the opening fence.
    var line: Int
    var language: String
    var markers: [String]
    var lines: [String]

    var description: String { "\(file):\(line)" }
}

/// A `$ ...` line of a console block, with the output shown under it.
struct DocCommand: Sendable, CustomStringConvertible {
    var file: String
    var line: Int
    var words: [String]
    var comment: String?
    var output: [String]

    var description: String { "\(file):\(line): $ \(words.joined(separator: " "))" }

    /// `# exit N`, or 0.
    var expectedExit: Int32 {
        guard let comment, comment.hasPrefix("exit "), let n = Int32(comment.dropFirst(5).trimmingCharacters(in: .whitespaces))
        else { return 0 }
        return n
    }
}

enum DocExamples {
    static let root = HouseFixtures.repositoryRoot
    static let files = ["README.md", "docs/CONFIG.md", "docs/MQTT.md", "docs/ARCHITECTURE.md", "docs/WEB.md"]

    static func blocks(in file: String) throws -> [DocBlock] {
        let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
        var blocks: [DocBlock] = []
        var current: DocBlock?
        var indent = 0
        for (i, raw) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = raw.drop(while: { $0 == " " })
            if trimmed.hasPrefix("```") {
                if let block = current {
                    blocks.append(block)
                    current = nil
                } else {
                    indent = raw.count - trimmed.count
                    let info = trimmed.dropFirst(3).split(separator: " ").map(String.init)
                    current = DocBlock(file: file, line: i + 1, language: info.first ?? "", markers: Array(info.dropFirst()), lines: [])
                }
                continue
            }
            if current != nil {
                current!.lines.append(String(raw.dropFirst(min(indent, raw.prefix(while: { $0 == " " }).count))))
            }
        }
        return blocks
    }

    static func allBlocks() throws -> [DocBlock] { try files.flatMap(blocks(in:)) }

    /// The commands of a console block.
    static func commands(in block: DocBlock) throws -> [DocCommand] {
        var commands: [DocCommand] = []
        var pending: (line: Int, text: String)?
        for (offset, line) in block.lines.enumerated() {
            if var p = pending {
                p.text += " " + line.trimmingCharacters(in: .whitespaces)
                pending = p
            } else if line.hasPrefix("$ ") {
                pending = (block.line + 1 + offset, String(line.dropFirst(2)))
            } else {
                if !commands.isEmpty { commands[commands.count - 1].output.append(line) }
                continue
            }
            if let p = pending {
                if p.text.hasSuffix("\\") {
                    pending = (p.line, String(p.text.dropLast()))
                } else {
                    let (words, comment) = try ShellWords.split(p.text)
                    commands.append(DocCommand(file: block.file, line: p.line, words: words, comment: comment, output: []))
                    pending = nil
                }
            }
        }
        // Trailing blank lines are layout, not output.
        for i in commands.indices {
            while commands[i].output.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { commands[i].output.removeLast() }
        }
        return commands
    }

    static func consoleCommands() throws -> [DocCommand] {
        try allBlocks().filter { $0.language == "console" }.flatMap(commands(in:))
    }

    // MARK: Expected output

    /// Whether `actual` shows the `expected` lines: in order, `...` skipping any lines; without
    /// `...` the lines must be exactly those.
    static func matches(_ actual: String, _ expected: [String]) -> Bool {
        let got = actual.replacingOccurrences(of: root + "/", with: "").components(separatedBy: "\n")
            .map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
            .filter { !$0.isEmpty }
        let want = expected.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
            .filter { !$0.isEmpty }
        return match(got[...], want[...])
    }

    /// `want` against `got`, `...` matching any run of lines (backtracking).
    static func match(_ got: ArraySlice<String>, _ want: ArraySlice<String>) -> Bool {
        guard let first = want.first else { return got.isEmpty }
        if first == "..." {
            let rest = want.dropFirst()
            return (got.startIndex...got.endIndex).contains { match(got[$0...], rest) }
        }
        guard got.first == first else { return false }
        return match(got.dropFirst(), want.dropFirst())
    }

    // MARK: housectl command lines

    /// The arguments to run a documented command line here: relative paths of the repository made
    /// absolute, and the example configuration named when the line relies on the default.
    static func arguments(_ words: [String]) -> [String] {
        var args = Array(words.dropFirst()).map { word -> String in
            for prefix in ["config/", "devices/", "Tests/", "deploy/"] where word.hasPrefix(prefix) {
                return root + "/" + word
            }
            return word
        }
        let noConfig = ["broker"]
        if !args.contains("--config"), let first = args.first, !noConfig.contains(first), first != "--help" {
            args += ["--config", HouseFixtures.exampleConfigPath]
        }
        return args
    }

    /// Whether the parsed command needs a running controller.
    static func needsController(_ command: ParsableCommand) -> Bool {
        switch command {
        case let c as SayCommand: !c.dryRun
        case let c as ControlCommand: !c.dryRun
        case let c as housectl.ModeSetCommand: !c.dryRun
        case is StatusCommand, is HistoryCommand: true
        default: false
        }
    }

    /// Runs a parsed offline command; its exit code and, when it can be captured, its output.
    static func runOffline(_ command: ParsableCommand) async throws -> (exit: Int32, output: String?)? {
        switch command {
        case let c as ConfigCheckCommand: return result(c.execute())
        case let c as SayCommand: return result(try await c.execute())
        case let c as ControlCommand: return result(try await c.execute())
        case let c as housectl.ModeSetCommand: return result(try await c.execute())
        case let c as RelaysCommand: return result(c.execute())
        case let c as BootConfigCommand: return result(c.execute())
        case let c as ShortcutsCommand:
            #expect(c.history.now != nil, "document `shortcuts` with --now, so its output is fixed")
            let out = c.execute(clock: SystemWallClock())
            return (out.exitCode, out.text)
        case let c as RoutinesCommand:
            let house = try ConfigurationLoader().load(path: c.config)
            let calendar = HouseCalendar(house: house.house)
            let from = try #require(c.from.flatMap(calendar.parseLocal), "document `routines` with --from, so its output is fixed")
            try await c.run()
            return (0, try ScheduleReport.routines(house, from: from, to: c.to.flatMap(calendar.parseLocal), limit: c.next ?? .max))
        default:
            return nil
        }
    }

    static func runWithController(_ command: ParsableCommand) async throws -> (exit: Int32, output: String?)? {
        switch command {
        case let c as SayCommand: return result(try await c.execute())
        case let c as ControlCommand: return result(try await c.execute())
        case let c as housectl.ModeSetCommand: return result(try await c.execute())
        case let c as StatusCommand: return result(await c.execute())
        case let c as HistoryCommand: return result(await c.execute())
        default: return nil
        }
    }

    static func result(_ out: CommandOutput) -> (exit: Int32, output: String?) {
        (out.exitCode, [out.errors, out.text].filter { !$0.isEmpty }.joined(separator: "\n"))
    }

    static func check(_ doc: DocCommand, exit: Int32, output: String?) {
        #expect(exit == doc.expectedExit, "\(doc): exit \(exit), the doc says \(doc.expectedExit)\n\(output ?? "")")
        if let output, !doc.output.isEmpty {
            #expect(matches(output, doc.output), "\(doc): the output differs from the doc.\n--- actual:\n\(output)\n--- doc:\n\(doc.output.joined(separator: "\n"))")
        }
    }

    // MARK: YAML

    /// `fragment` merged into the example house: list items replace those with the same id or
    /// are appended; mappings are merged key by key; anything else replaces.
    static func merged(_ fragment: String) throws -> String {
        let base = try String(contentsOfFile: HouseFixtures.exampleConfigPath, encoding: .utf8)
        guard case .mapping(var house)? = try Yams.compose(yaml: base),
              case .mapping(let part)? = try Yams.compose(yaml: fragment) else {
            throw DocError("a fragment must be a YAML mapping of top-level keys")
        }
        for (key, value) in part {
            switch (house[key], value) {
            case (.sequence(var items)?, .sequence(let added)):
                for item in added {
                    if let id = item.mapping?["id"], let i = items.firstIndex(where: { $0.mapping?["id"] == id }) {
                        items[i] = item
                    } else {
                        items.append(item)
                    }
                }
                house[key] = .sequence(items)
            case (.mapping(var old)?, .mapping(let new)):
                for (k, v) in new { old[k] = v }
                house[key] = .mapping(old)
            default:
                house[key] = value
            }
        }
        return try Yams.serialize(node: .mapping(house))
    }

    // MARK: MQTT

    /// Checks a `mosquitto_pub` line: known options, no retained command, and a payload the
    /// daemon's parser for that topic accepts (refuses, with `# malformed`).
    static func checkPublish(_ doc: DocCommand, configuration: HouseConfiguration) throws {
        let args = MosquittoArgs(Array(doc.words.dropFirst()))
        #expect(args.unknown.isEmpty, "\(doc): unknown mosquitto_pub options \(args.unknown)")
        let topic = try #require(args.topics.first, "\(doc): no -t topic")
        let payload = Array((args.message ?? "").utf8)
        let malformed = doc.comment == "malformed"
        let layout = TopicLayout(base: configuration.mqtt.baseTopic)
        var ok = true
        if topic == layout.modeSet {
            ok = (try? CommandPayloadParser.modeCommand(payload, topic: topic)) != nil
        } else if topic == layout.intentRequest || topic == layout.cliRequest {
            ok = (try? CommandPayloadParser.intentRequest(payload, topic: topic)) != nil
        } else if topic.hasPrefix(layout.base + "/node/"), topic.hasSuffix("/relay") {
            let command = try? PeerRelayCommand.parse(payload)
            ok = command.map { c in configuration.device(id: c.device)?.node != nil } ?? false
        } else if let (room, device) = layout.parsePositionSet(topic) {
            #expect(configuration.device(id: device)?.motor != nil, "\(doc): no cover \(device) in room \(room) in config/house.yaml")
            ok = (try? CommandPayloadParser.positionCommand(payload, topic: topic)) != nil
        } else if let (room, device) = layout.parseDeviceSet(topic) {
            #expect(configuration.device(id: device)?.room == room, "\(doc): no device \(device) in room \(room) in config/house.yaml")
            ok = (try? CommandPayloadParser.deviceCommand(payload, topic: topic)) != nil
            // A retained command is refused by the controller: shown only as such (`# refused ...`).
            #expect(!args.retain || malformed || (doc.comment ?? "").hasPrefix("refused"), "\(doc): retained commands are refused by the controller")
        } else if topic == "homeassistant/status" {
            ok = ["online", "offline"].contains(args.message ?? "")
        } else {
            let ruleTopics = configuration.rules.compactMap { rule -> String? in
                if case .mqtt(let t, _, _, _) = rule.trigger { return t }
                return nil
            }
            #expect(ruleTopics.contains(topic), "\(doc): \(topic) is neither a housectl topic nor a rule's topic in config/house.yaml")
        }
        #expect(ok != malformed, "\(doc): the daemon's parser \(ok ? "accepts" : "refuses") this payload\(malformed ? ", but the doc says it is malformed" : "")")
    }

    static func checkSubscribe(_ doc: DocCommand) {
        let args = MosquittoArgs(Array(doc.words.dropFirst()))
        #expect(args.unknown.isEmpty, "\(doc): unknown mosquitto_sub options \(args.unknown)")
        #expect(!args.topics.isEmpty, "\(doc): no -t filter")
        for filter in args.topics {
            let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
            let valid = !filter.isEmpty && levels.enumerated().allSatisfy { i, level in
                (level == "#" && i == levels.count - 1) || level == "+" || (!level.contains("#") && !level.contains("+"))
            }
            #expect(valid, "\(doc): \(filter) is not a valid topic filter")
        }
    }
}

struct DocError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The mosquitto_pub / mosquitto_sub options the docs use.
struct MosquittoArgs {
    var topics: [String] = []
    var message: String?
    var retain = false
    var unknown: [String] = []

    init(_ words: [String]) {
        let withValue: Set<String> = ["-h", "-p", "-u", "-P", "-q", "-i", "-C", "-W", "-F", "-T", "--cafile", "--cert", "--key", "--id"]
        let flags: Set<String> = ["-v", "-R", "-N", "-d", "--quiet", "--retained-only", "-n"]
        var i = 0
        while i < words.count {
            let w = words[i]
            let next = i + 1 < words.count ? words[i + 1] : nil
            switch w {
            case "-t": if let next { topics.append(next) }; i += 1
            case "-m": message = next; i += 1
            case "-r": retain = true
            case "-V": i += 1  // the protocol version (mqttv5)
            // An MQTT 5 property: `-D COMMAND NAME VALUE`, a user property `-D COMMAND user-property KEY VALUE`.
            case "-D": i += i + 2 < words.count && words[i + 2] == "user-property" ? 4 : 3
            case _ where withValue.contains(w): i += 1
            case _ where flags.contains(w): break
            default: unknown.append(w)
            }
            i += 1
        }
    }
}

/// Splits a command line the way a POSIX shell does (quotes, backslashes), and returns the
/// trailing `# comment`.
enum ShellWords {
    static func split(_ line: String) throws -> (words: [String], comment: String?) {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var chars = Array(line)[...]
        while let c = chars.popFirst() {
            if let q = quote {
                if c == q {
                    quote = nil
                } else if q == "\"" && c == "\\", let n = chars.first, n == "\"" || n == "\\" || n == "$" {
                    word.append(chars.removeFirst())
                } else {
                    word.append(c)
                }
                continue
            }
            switch c {
            case "'", "\"":
                quote = c
                inWord = true
            case "\\":
                if let n = chars.popFirst() { word.append(n) }
                inWord = true
            case " ", "\t":
                if inWord { words.append(word); word = ""; inWord = false }
            case "#" where !inWord:
                return (words, String(chars).trimmingCharacters(in: .whitespaces))
            default:
                word.append(c)
                inWord = true
            }
        }
        guard quote == nil else { throw DocError("unterminated quote in: \(line)") }
        if inWord { words.append(word) }
        return (words, nil)
    }
}

@Suite struct DocExamplesTests {
    @Test func theDocsHaveExamplesOfEveryKind() throws {
        let blocks = try DocExamples.allBlocks()
        for file in DocExamples.files {
            #expect(blocks.contains { $0.file == file } || file == "docs/ARCHITECTURE.md", "\(file) has no code blocks")
        }
        let commands = try DocExamples.consoleCommands()
        #expect(commands.filter { $0.words.first == "housectl" }.count >= 20)
        #expect(commands.filter { $0.words.first == "mosquitto_pub" }.count >= 10)
        #expect(blocks.contains { $0.markers.contains("test-fragment") })
        #expect(blocks.contains { $0.markers.contains("test-board") })
    }

    @Test func everyExampleFollowsTheConvention() throws {
        for block in try DocExamples.allBlocks() {
            if block.language == "yaml" {
                let known = ["test-house", "test-fragment", "test-invalid", "test-accepted", "test-board", "test-phrases"]
                #expect(block.markers.contains { known.contains($0) }, "\(block): a yaml block needs a test marker (\(known.joined(separator: ", ")))")
            }
            if block.language != "console" {
                let stray = block.lines.first { line in
                    let l = line.trimmingCharacters(in: .whitespaces)
                    return l.hasPrefix("housectl ") || l.hasPrefix("$ housectl") || l.hasPrefix("mosquitto_pub") || l.hasPrefix("$ mosquitto")
                }
                #expect(stray == nil, "\(block): commands belong in a console block, where they are tested: \(stray ?? "")")
            }
        }
        for command in try DocExamples.consoleCommands() {
            #expect(["housectl", "mosquitto_pub", "mosquitto_sub"].contains(command.words.first ?? ""),
                    "\(command): only housectl, mosquitto_pub and mosquitto_sub can be tested in a console block")
        }
    }

    @Test func everyHousectlLineParses() throws {
        for doc in try DocExamples.consoleCommands() where doc.words.first == "housectl" {
            do {
                _ = try Housectl.parseAsRoot(Array(doc.words.dropFirst()))
            } catch {
                Issue.record("\(doc): \(Housectl.fullMessage(for: error))")
            }
        }
    }

    @Test func offlineCommandsRunAsDocumented() async throws {
        var ran = 0
        for doc in try DocExamples.consoleCommands() where doc.words.first == "housectl" {
            guard let command = try? Housectl.parseAsRoot(DocExamples.arguments(doc.words)),
                  !DocExamples.needsController(command) else { continue }
            do {
                guard let (exit, output) = try await DocExamples.runOffline(command) else { continue }
                DocExamples.check(doc, exit: exit, output: output)
                ran += 1
            } catch let error as ExitCode {
                DocExamples.check(doc, exit: error.rawValue, output: nil)
            } catch {
                Issue.record("\(doc): \(error)")
            }
        }
        #expect(ran >= 10)
    }

    @Test func controllerCommandsRunAgainstAController() async throws {
        let docs = try DocExamples.consoleCommands().filter { doc in
            guard doc.words.first == "housectl", let c = try? Housectl.parseAsRoot(DocExamples.arguments(doc.words)) else { return false }
            return DocExamples.needsController(c)
        }
        #expect(docs.count >= 5)
        // One controller per document, fresh state, commands in document order.
        for file in DocExamples.files {
            let inFile = docs.filter { $0.file == file }
            guard !inFile.isEmpty else { continue }
            try await withController { fixture in
                for doc in inFile {
                    let args = DocExamples.arguments(doc.words) + ["--broker", "127.0.0.1:\(fixture.port)"]
                    let command = try Housectl.parseAsRoot(args)
                    guard let (exit, output) = try await DocExamples.runWithController(command) else {
                        Issue.record("\(doc): no way to run it here")
                        continue
                    }
                    DocExamples.check(doc, exit: exit, output: output)
                }
            }
        }
    }

    @Test func everyPublishedPayloadParses() throws {
        let configuration = try HouseFixtures.exampleConfiguration()
        for doc in try DocExamples.consoleCommands() {
            switch doc.words.first {
            case "mosquitto_pub": try DocExamples.checkPublish(doc, configuration: configuration)
            case "mosquitto_sub": DocExamples.checkSubscribe(doc)
            default: break
            }
        }
    }

    /// The documented publishes, sent to a controller in document order: every request that
    /// gets a reply is answered, with `"status":"error"` exactly when the doc says `# malformed`.
    @Test func documentedRequestsAreAnswered() async throws {
        let docs = try DocExamples.consoleCommands().filter { $0.words.first == "mosquitto_pub" }
        let layout = TopicLayout()
        let answered = try await withController { fixture in
            var answered = 0
            let client = try await fixture.mqttClient()
            let replies = try await client.subscribe(to: "house/intent/response/#")
            for doc in docs {
                let args = MosquittoArgs(Array(doc.words.dropFirst()))
                guard let topic = args.topics.first, let message = args.message else { continue }
                try await client.publish(to: topic, payload: message, qos: .atLeastOnce)
                let object = (try? JSONSerialization.jsonObject(with: Data(message.utf8))) as? [String: Any]
                guard let id = object?["id"] as? String else { continue }
                let malformed = doc.comment == "malformed"
                let isRequest = topic == layout.intentRequest || topic == layout.cliRequest
                let replyTo = object?["reply_to"] as? String
                guard isRequest || replyTo != nil || malformed else { continue }
                let expected = replyTo ?? layout.intentResponse(id: id)
                guard expected.hasPrefix("house/intent/response/") else { continue }
                let reply = try await withTimeout(.seconds(10), "the reply to \(doc)") {
                    for try await m in replies where m.topic == expected { return m }
                    throw DocError("the subscription ended")
                }
                let decoded = try JSONDecoder().decode(IntentReply.self, from: Data(reply.payload))
                #expect((decoded.status == .error) == malformed, "\(doc): the reply is \(decoded.status): \(decoded.dialog)")
                answered += 1
            }
            await client.disconnect()
            return answered
        }
        #expect(answered >= 10)
    }

    @Test func everyConfigurationExampleLoads() throws {
        let boards = HouseFixtures.boards()
        for block in try DocExamples.allBlocks() where block.language == "yaml" {
            let text = block.lines.joined(separator: "\n")
            let name = block.description
            do {
                if block.markers.contains("test-house") {
                    _ = try ConfigurationLoader().load(yaml: text, file: name, boards: boards)
                } else if block.markers.contains("test-fragment") {
                    _ = try ConfigurationLoader().load(yaml: try DocExamples.merged(text), file: name, boards: boards)
                } else if block.markers.contains("test-accepted") {
                    let house = try String(contentsOfFile: HouseFixtures.exampleConfigPath, encoding: .utf8)
                    _ = try ConfigurationLoader().load(yaml: house, file: "config/house.yaml", accepted: (text, name), boards: boards)
                } else if block.markers.contains("test-invalid") {
                    #expect(throws: ConfigurationError.self, "\(name): this example should be refused") {
                        _ = try ConfigurationLoader().load(yaml: try DocExamples.merged(text), file: name, boards: boards)
                    }
                } else if block.markers.contains("test-board") {
                    guard case .mapping(let m)? = try Yams.compose(yaml: text), let id = m["id"]?.string else {
                        Issue.record("\(name): a board profile needs an id")
                        continue
                    }
                    _ = try ConfigurationLoader.parseBoard(yaml: text, id: id, file: name)
                } else if block.markers.contains("test-phrases") {
                    let set = try defaultPhrases().merging(try PhraseSet.parse(yaml: text, source: name))
                    _ = try PhraseMatcher(phraseSet: set, house: try HouseFixtures.exampleConfiguration())
                }
            } catch {
                Issue.record("\(name): \(error)")
            }
        }
    }

    @Test func everyJSONExampleDecodes() throws {
        for block in try DocExamples.allBlocks() where block.language == "json" {
            let data = Data(block.lines.joined(separator: "\n").utf8)
            #expect((try? JSONSerialization.jsonObject(with: data)) != nil, "\(block): invalid JSON")
            if block.markers.contains("reply") {
                #expect((try? JSONDecoder().decode(IntentReply.self, from: data)) != nil, "\(block): not a controller reply")
            }
        }
    }

    @Test func theShellSplitterHandlesQuotesAndComments() throws {
        let (words, comment) = try ShellWords.split(#"mosquitto_pub -t 'house/#' -m "{\"id\":\"a b\"}" # exit 4"#)
        #expect(words == ["mosquitto_pub", "-t", "house/#", "-m", #"{"id":"a b"}"#])
        #expect(comment == "exit 4")
        #expect(DocExamples.matches("a\nb\nc\n", ["a", "...", "c"]))
        #expect(!DocExamples.matches("a\nb\nc\n", ["a", "c"]))
        #expect(DocExamples.matches("a\nb\nc\n", ["...", "b", "..."]))
    }
}
