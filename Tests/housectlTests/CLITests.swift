import Foundation
import Testing
@testable import housectl
import HouseCore
import HouseTesting

@Suite struct ConfigCheckCommandTests {
    let config = HouseFixtures.exampleConfigPath
    let broken = HouseFixtures.brokenConfigPath

    @Test func acceptsTheExampleWithASummary() throws {
        let out = try ConfigCheckCommand.parse([config]).execute()
        #expect(out.exitCode == 0)
        #expect(out.text.hasPrefix("\(config): OK\n"))
        #expect(out.text.contains("devices: 19 (13 on relays, 1 over MQTT, 1 sensor, 4 inputs, 2 need confirmation)"))
        #expect(out.text.contains("good-morning: \"Good morning house\", relevant 06:00-09:00 on weekdays, runs at 06:30"))
    }

    @Test func defaultsToTheConfigOption() throws {
        let out = try ConfigCheckCommand.parse(["--config", config]).execute()
        #expect(out.exitCode == 0)
    }

    @Test func rejectsTheBrokenCopyWithEveryErrorLocated() throws {
        let out = try ConfigCheckCommand.parse([broken, "--devices-dir", HouseFixtures.devicesDirectory]).execute()
        #expect(out.exitCode == 1)
        let lines = out.errors.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(lines.count == 20)
        #expect(lines.allSatisfy { $0.hasPrefix("\(broken):") })
        #expect(lines.contains { $0.hasPrefix("\(broken):15:30: error: unknown room 'bedrom'") })
        #expect(lines.contains { $0.hasPrefix("\(broken):20:100: error: interlock group 'blind' spans nodes") })
        #expect(out.errors.contains("20 errors in the configuration"))
    }

    @Test func jsonListsErrorsForMachines() throws {
        let out = try ConfigCheckCommand.parse([broken, "--devices-dir", HouseFixtures.devicesDirectory, "--json"]).execute()
        #expect(out.exitCode == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(out.text.utf8)) as? [String: Any])
        #expect(object["ok"] as? Bool == false)
        let errors = try #require(object["errors"] as? [[String: Any]])
        #expect(errors.count == 20)
        #expect(errors.first?["line"] as? Int == 3)
        #expect(errors.first?["column"] as? Int == 3)
    }
}

@Suite struct ControlCommandTests {
    let config = HouseFixtures.exampleConfigPath

    func run(_ args: [String]) async throws -> CommandOutput {
        try await ControlCommand.parse(args + ["--config", config]).execute()
    }

    @Test func dryRunPrintsTheWholeTrace() async throws {
        let out = try await run(["--room", "bedroom", "--device", "lights", "--action", "off", "--dry-run"])
        #expect(out.exitCode == 0)
        let expected = """
            intent: control room=bedroom device=lights action=off (from cli, dry run)
            resolve:
              room: success bedroom
              device: success bedroom-bedside-lamp, bedroom-ceiling-light
              action: success off
            confirm: ready
            commands (not issued, dry run):
              relay pi-bedroom/2 OFF (bedroom-bedside-lamp)
              relay pi-bedroom/1 OFF (bedroom-ceiling-light)
            status: done
            answer: OK, the bedroom bedside lamp and bedroom ceiling light are off.
            """
        #expect(out.text == expected)
    }

    @Test func withoutADaemonSaysWhichBrokerWasTriedAndHowToStartOne() async throws {
        let port = 1  // nothing listens on port 1: connection refused
        let out = try await run(["--room", "hall", "--device", "light", "--action", "on", "--broker", "127.0.0.1:\(port)"])
        #expect(out.exitCode == ExitStatus.noController.rawValue)
        #expect(out.errors.contains("127.0.0.1:\(port)"))
        #expect(out.errors.contains("make run"))
    }

    @Test func jsonTraceDecodes() async throws {
        let out = try await run(["--room", "bedroom", "--device", "lamp", "--action", "on", "--dry-run", "--json"])
        #expect(out.exitCode == ExitStatus.needsChoice.rawValue)
        let trace = try JSONDecoder().decode(IntentTrace.self, from: Data(out.text.utf8))
        #expect(trace.status == .needsChoice)
        #expect(trace.pendingParameter == "device")
        #expect(trace.options.map(\.id) == ["bedroom-ceiling-light", "bedroom-bedside-lamp"])
        #expect(trace.parameters.map(\.kind) == [.success, .disambiguation])
    }

    @Test func answersAreFedBackWithChooseAndYes() async throws {
        let chosen = try await run(["--room", "bedroom", "--device", "lamp", "--action", "on",
                                    "--choose", "device=bedroom-bedside-lamp", "--dry-run"])
        #expect(chosen.exitCode == 0)
        #expect(chosen.text.contains("relay pi-bedroom/2 ON (bedroom-bedside-lamp)"))
        let asked = try await run(["--device", "heater", "--action", "on", "--dry-run"])
        #expect(asked.exitCode == ExitStatus.needsConfirmation.rawValue)
        #expect(asked.text.contains("status: needsConfirmation"))
        #expect(asked.text.contains("(answer yes with --yes)"))
        let yes = try await run(["--device", "heater", "--action", "on", "--yes", "--dry-run"])
        #expect(yes.exitCode == 0)
        #expect(yes.text.contains("relay pi-main/8 ON (bathroom-heater)"))
    }

    @Test func refusedForADeniedSource() async throws {
        let out = try await run(["--device", "garage door", "--action", "open", "--yes", "--source", "mqtt", "--dry-run"])
        #expect(out.exitCode == 1)
        #expect(out.text.contains("confirm: failureRequiresPermission"))
        #expect(out.text.contains("commands (not issued, dry run):\n  (none)"))
    }

    @Test func badChooseIsAValidationError() async throws {
        await #expect(throws: (any Error).self) {
            _ = try await run(["--device", "lamp", "--choose", "lamp", "--dry-run"])
        }
    }
}

@Suite struct ModeSetCommandTests {
    let config = HouseFixtures.exampleConfigPath

    @Test func dryRunForSomeRoomsAndADuration() async throws {
        let out = try await ModeSetCommand.parse(["night", "--rooms", "bedroom,hall", "--for", "2h", "--dry-run", "--config", config]).execute()
        #expect(out.exitCode == 0)
        #expect(out.text.contains("rooms: success bedroom, hall"))
        #expect(out.text.contains("duration: success 2h"))
        #expect(out.text.contains("answer: OK. The bedroom and hall are in night mode for 2h."))
        #expect(!out.text.contains("kitchen-light"))
    }

    @Test func jsonAndTooLongDuration() async throws {
        let out = try await ModeSetCommand.parse(["away", "--for", "32d", "--dry-run", "--json", "--config", config]).execute()
        #expect(out.exitCode == 1)
        let trace = try JSONDecoder().decode(IntentTrace.self, from: Data(out.text.utf8))
        #expect(trace.status == .unsupported)
        #expect(trace.parameters.first { $0.parameter == "duration" }?.reason?.contains("at most 31 days") == true)
    }

    @Test func badDurationIsRejectedByTheParser() {
        #expect(throws: (any Error).self) { try ModeSetCommand.parse(["night", "--for", "soon"]) }
    }

    @Test func withoutADaemonSaysWhichBrokerWasTried() async throws {
        // Nothing listens on port 1: the connection is refused at once.
        let out = try await ModeSetCommand.parse(["night", "--config", config, "--broker", "127.0.0.1:1"]).execute()
        #expect(out.exitCode == ExitStatus.noController.rawValue)
        #expect(out.errors.contains("127.0.0.1:1"))
        #expect(out.errors.contains("housectl serve"))
    }
}

@Suite struct ByteCountTests {
    @Test(arguments: [("65536", 65536), ("64K", 65536), ("64KiB", 65536), ("16M", 16 << 20), ("16mib", 16 << 20), ("1G", 1 << 30), ("0", 0), ("12B", 12)])
    func parses(text: String, bytes: Int) {
        #expect(ByteCount(argument: text)?.bytes == bytes)
    }

    @Test(arguments: ["", "x", "-1", "1x", "1.5M", "99999999999999999999G"])
    func refuses(text: String) {
        #expect(ByteCount(argument: text) == nil)
    }

    @Test func printsTheShortestExactForm() {
        #expect(ByteCount(64 << 20).description == "64MiB")
        #expect(ByteCount(4096).description == "4KiB")
        #expect(ByteCount(1000).description == "1000")
    }
}
