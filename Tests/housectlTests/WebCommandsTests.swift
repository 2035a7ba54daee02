import ArgumentParser
import Foundation
import HouseCore
import HouseWeb
import Testing
@testable import housectl
import HouseTesting

/// The page's commands: the day picture from the command line, the password file, and serve's
/// web options.
@Suite struct WebCommandsTests {
    func withTemporaryDirectory(_ body: (String) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "housectl-webcmd-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(directory)
    }

    @Test func routinesWritesTheDayAsAPicture() async throws {
        // A Thursday (a weekday, so the morning routine is relevant and planned) in December (GMT)
        // that is not the house's today: `--svg` draws the now line on today's picture, and the
        // command reads the machine's clock (it has no option for another now). 24 December 2026,
        // or 31 December when the machine's day in the house's zone is the 23rd or the 24th (the
        // command runs well within a day, so the day it draws is never its today).
        let house = try HouseFixtures.exampleConfiguration().house
        let today = HouseCalendar(house: house).localDate(of: Date())
        let day = try #require(["2026-12-24", "2026-12-31"].compactMap(LocalDate.init).first { $0 != today && $0 != today.adding(days: 1) })
        #expect(day.weekdayName == "Thursday")
        try await withTemporaryDirectory { directory in
            let file = directory + "/day.svg"
            try await RoutinesCommand.parse(["--config", HouseFixtures.exampleConfigPath, "--svg", day.description, "-o", file]).run()
            let svg = try String(contentsOfFile: file, encoding: .utf8)
            #expect(svg.hasPrefix("<svg "))
            #expect(svg.contains(#"data-date="\#(day)""#))
            #expect(svg.contains(#"class="window" data-routine="good-morning""#))
            #expect(svg.contains(#"class="run" data-routine="good-morning""#))
            #expect(svg.contains("GMT"))
            #expect(!svg.contains(#"class="now""#), "a day that is not today has no now line")
        }
        await #expect(throws: (any Error).self) {
            try await RoutinesCommand.parse(["--config", HouseFixtures.exampleConfigPath, "--svg", "Christmas"]).run()
        }
    }

    @Test func passwdWritesABcryptLineAndKeepsTheOtherUsers() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory + "/web-passwords"
            try "bob:\(WebPasswordFile.entry(user: "x", password: "y", cost: 4).dropFirst(2))\n".write(toFile: file, atomically: true, encoding: .utf8)
            // Not a terminal: the password is the first line of stdin.
            let pipe = Pipe()
            let saved = dup(0)
            dup2(pipe.fileHandleForReading.fileDescriptor, 0)
            defer { dup2(saved, 0); close(saved) }
            pipe.fileHandleForWriting.write(Data("correct horse battery\n".utf8))
            try pipe.fileHandleForWriting.close()
            try await WebPasswdCommand.parse(["--file", file, "--user", "alice", "--cost", "4"]).run()
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(!text.contains("correct horse"))
            let passwords = try WebPasswordFile(path: file)
            #expect(passwords.check(user: "alice", password: "correct horse battery"))
            #expect(text.hasPrefix("bob:$2"), "bob's line is kept")
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    @Test func serveTakesTheWebPortOrNoPage() throws {
        let config = try HouseFixtures.exampleConfiguration()
        #expect(try ServeCommand.parse([]).webSettings(config)?.port == 8080)
        #expect(try ServeCommand.parse(["--web-port", "0"]).webSettings(config)?.port == 0)
        #expect(try ServeCommand.parse(["--no-web"]).webSettings(config) == nil)
        var bare = config
        bare.web = nil
        #expect(try ServeCommand.parse([]).webSettings(bare) == nil)
        #expect(try ServeCommand.parse(["--web-port", "9000"]).webSettings(bare) == WebSettings(bind: "127.0.0.1", port: 9000))
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--no-web", "--web-port", "9000"]) }
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--web-port", "70000"]) }
    }

    @Test func serveRehearsesAnotherTimeOnSimulatedRelaysOnly() throws {
        #expect(try ServeCommand.parse(["--start-time", "2026-11-28 07:30", "--gpio", "sim"]).startTime == "2026-11-28 07:30")
        let refusal = ServeCommand.message(for: thrownError { try ServeCommand.parse(["--start-time", "2026-11-28 07:30"]) })
        #expect(refusal.contains("--start-time needs --gpio sim"), "\(refusal)")
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--start-time", "2026-11-28 07:30", "--gpio", "gpiochip0"]) }
    }
}

/// The error `body` throws (the test fails when it throws none).
private func thrownError(_ body: () throws -> Void) -> any Error {
    do { try body() } catch { return error }
    Issue.record("no error thrown")
    return CancellationError()
}
