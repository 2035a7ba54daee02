import Foundation
import HouseDaemon
import HouseTesting
import Testing
@testable import housectl

@Suite(.serialized) struct SayCommandTests {
    let config = HouseFixtures.exampleConfigPath

    func say(_ args: [String]) async throws -> CommandOutput {
        try await SayCommand.parse(args + ["--config", config]).execute()
    }

    @Test func dryRunUnderstandsTheIssueExamples() async throws {
        let off = try await say(["turn off the lights in the bedroom", "--dry-run"])
        #expect(off.exitCode == 0)
        #expect(off.text.contains("relay pi-bedroom/1 OFF (bedroom-ceiling-light)"))
        #expect(off.text.contains("relay pi-bedroom/2 OFF (bedroom-bedside-lamp)"))
        let two = try await say(["set the living room to movie mode and turn off the kitchen light", "--dry-run"])
        #expect(two.exitCode == 0)
        #expect(two.text.contains("\"set the living room to movie mode\" -> set Living room to movie mode"))
        #expect(two.text.contains("\"turn off the kitchen light\" -> turn off light in Kitchen"))
        let away = try await say(["we're out for two hours", "--dry-run"])
        #expect(away.exitCode == ExitStatus.needsConfirmation.rawValue)
        #expect(away.text.contains("(answer yes with --yes)"))
        #expect(try await say(["we're out for two hours", "--dry-run", "--yes"]).exitCode == 0)
    }

    /// Without --room, what is said at a node that stands in a room means that room.
    @Test func theNodesRoomIsTheSpeakersRoom() async throws {
        var command = try SayCommand.parse(["turn off the lights", "--dry-run", "--config", config])
        command.hostName = "pi-bedroom"
        let out = try await command.execute()
        #expect(out.exitCode == 0, "\(out.text)")
        #expect(out.text.contains("relay pi-bedroom/1 OFF (bedroom-ceiling-light)"))
        command.hostName = "pi-main"
        #expect(try await command.execute().exitCode == ExitStatus.needsChoice.rawValue, "pi-main stands in no room: which room is asked")
        var roomSaid = try SayCommand.parse(["turn off the lights", "--dry-run", "--room", "kitchen", "--config", config])
        roomSaid.hostName = "pi-bedroom"
        #expect(try await roomSaid.execute().text.contains("relay pi-main/5 OFF (kitchen-light)"), "--room wins over the node's room")
    }

    @Test func batchModeAnswersOneJSONLinePerPhraseInOneProcess() async throws {
        let binary = BrokerCommandTests.binary.path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "housectl not built at \(binary)")
        let input = "hall light on\\nwhat mode is the house in\\n\\nmake me a sandwich\\nturn on the light\\nhallway\\tturn on the light in here\\nattic\\tlights off\\n"
        let (status, output) = try await BrokerCommandTests.run("/bin/sh", [
            "-c", "printf '\(input)' | '\(binary)' say - --dry-run --json --config '\(config)' 2>&1"])
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.count == 6, "\(output)")
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.map { $0["text"] as? String } == ["hall light on", "what mode is the house in", "make me a sandwich", "turn on the light",
                                                          "turn on the light in here", "lights off"])
        #expect(objects.map { $0["status"] as? String } == ["done", "done", "notUnderstood", "needsChoice", "done", "error"])
        // The speaker's room per line: the hall's light.
        #expect(objects[4]["commands"] as? [String] == ["relay pi-main/6 ON (hall-light)"])
        #expect((objects[5]["answer"] as? String)?.hasPrefix("unknown room 'attic'; the rooms are: living-room, kitchen") == true)
        #expect(objects[0]["commands"] as? [String] == ["relay pi-main/6 ON (hall-light)"])
        #expect((objects[2]["answer"] as? String)?.contains("I don't understand") == true)
        #expect(objects[3]["commands"] as? [String] == [])

        let unknownRoom = try await say(["turn off the lights", "--room", "attic", "--dry-run"])
        #expect(unknownRoom.exitCode == 1)
        #expect(unknownRoom.errors.contains("unknown room 'attic'; the rooms are: living-room (Living room), kitchen (Kitchen)"))
        let inTheKitchen = try await say(["turn off the lights", "--room", "kitchen", "--dry-run"])
        #expect(inTheKitchen.exitCode == 0)
        #expect(inTheKitchen.text.contains("relay pi-main/5 OFF (kitchen-light)"))

        let refused = try await say(["-"])
        #expect(refused.exitCode == 1)
        #expect(refused.errors.contains("needs --dry-run"))
    }

    @Test func textThatMatchesNothingGetsTheClosestPhrases() async throws {
        let out = try await say(["make me a sandwich", "--dry-run"])
        #expect(out.exitCode == ExitStatus.refused.rawValue)
        #expect(out.text.contains("Closest phrases I know"))
    }

    @Test func theControllerCarriesItOutAndAsksForChoices() async throws {
        try await withController { f in
            let broker = ["--broker", "127.0.0.1:\(f.port)"]
            let done = try await say(["good morning house"] + broker)
            #expect(done.exitCode == 0)
            #expect(done.text.contains("morning mode"))
            // "lamp" in the bedroom is two devices: the exit status says a choice is needed.
            let asked = try await say(["turn on the lamp in the bedroom"] + broker)
            #expect(asked.exitCode == ExitStatus.needsChoice.rawValue)
            #expect(asked.text.contains("--choose device="))
            let chosen = try await say(["turn on the lamp in the bedroom", "--choose", "device=bedroom-bedside-lamp"] + broker)
            #expect(chosen.exitCode == 0)
            let json = try await say(["is the kitchen light on", "--json"] + broker)
            let reply = try JSONDecoder().decode(IntentReply.self, from: Data(json.text.utf8))
            #expect(reply.status == .done)
        }
    }
}
