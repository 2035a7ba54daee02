import Foundation
import Testing
@testable import HouseDaemon

/// Files written whole (`WholeFile`): the content all there, the permissions asked for or kept,
/// and a file in a directory the writer may not write (systemd's ProtectSystem with only the file
/// writable) rewritten in place.
@Suite final class WholeFileTests {
    let directory = NSTemporaryDirectory() + "housectl-wholefile-\(UUID().uuidString)"
    deinit {
        chmod(directory, 0o755)
        try? FileManager.default.removeItem(atPath: directory)
    }

    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func permissionsAreSetOrKept() throws {
        let key = directory + "/keys/key.json", config = directory + "/house.accepted.yaml"
        try WholeFile.write(Array("secret".utf8), to: key, permissions: .exactly(0o600), directoryMode: 0o700)
        #expect(try String(contentsOfFile: key, encoding: .utf8) == "secret")
        #expect(try mode(key) == 0o600)
        #expect(try mode(directory + "/keys") == 0o700)
        try WholeFile.write(Array("a: 1\n".utf8), to: config, permissions: .keptOr(0o644))
        #expect(try mode(config) == 0o644)
        chmod(config, 0o640)
        try WholeFile.write(Array("a: 2\n".utf8), to: config, permissions: .keptOr(0o644))
        #expect(try mode(config) == 0o640, "an existing file keeps its mode")
        #expect(try String(contentsOfFile: config, encoding: .utf8) == "a: 2\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["house.accepted.yaml", "keys"], "no temporary file left")
    }

    @Test func aFileInADirectoryThatMayNotBeWrittenIsRewrittenInPlace() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/house.accepted.yaml"
        try "old: true\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(directory, 0o555)
        try WholeFile.write(Array("new: true\n".utf8), to: path, permissions: .keptOr(0o644))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new: true\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["house.accepted.yaml"])
        // A file that is not there cannot be made in such a directory, and says where (root may).
        if getuid() != 0 {
            let error = try #require(throws: DaemonError.self) {
                try WholeFile.write(Array("x".utf8), to: self.directory + "/other.yaml", permissions: .keptOr(0o644))
            }
            #expect(error == .file(path: directory + "/other.yaml.tmp", reason: "Permission denied"))
        }
    }
}
