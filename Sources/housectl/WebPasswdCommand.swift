import ArgumentParser
import Foundation
import HouseWeb

/// `housectl web passwd --file F [--user U]`: adds or changes a user of the page's password file
/// (bcrypt hashes; the password is read from the terminal without echo, or from stdin).
struct WebPasswdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Add or change a user of the page's password file (web.password_file).",
        discussion: """
            The password is asked at the terminal (twice, not shown), or read from the first line of \
            stdin when stdin is not a terminal. The file keeps only bcrypt hashes and is written with \
            mode 0600; other users' lines are kept.
            Example: housectl web passwd --file /etc/housectl/web-passwords --user alice
            """
    )

    @Option(help: "The password file (created if missing).") var file: String
    @Option(help: "The user to add or change.") var user: String = "admin"
    @Option(help: "bcrypt's cost (4-31): 2^cost rounds; each step doubles the time of a login and of a guess.")
    var cost: UInt8 = WebPasswordFile.defaultCost

    func validate() throws {
        guard !user.isEmpty, !user.contains(":"), !user.contains(where: \.isNewline) else {
            throw ValidationError("--user must be a name without ':' or line breaks")
        }
        guard (4...31).contains(cost) else { throw ValidationError("--cost must be 4...31") }
    }

    func run() async throws {
        let password: String
        if isatty(0) == 1 {
            guard let first = Self.prompt("Password for \(user): "), let second = Self.prompt("Again: ") else { throw ExitCode(1) }
            guard first == second else { throw ValidationError("the two passwords differ; nothing was written") }
            password = first
        } else {
            password = readLine(strippingNewline: true) ?? ""
        }
        guard password.count >= 8 else { throw ValidationError("the password needs at least 8 characters; nothing was written") }
        var lines: [String] = []
        if let data = FileManager.default.contents(atPath: file) {
            lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines.removeAll { $0.hasPrefix(user + ":") }
            while lines.last?.isEmpty == true { lines.removeLast() }
        }
        lines.append(WebPasswordFile.entry(user: user, password: password, cost: cost))
        let text = lines.joined(separator: "\n") + "\n"
        guard FileManager.default.createFile(atPath: file, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ValidationError("cannot write \(file)")
        }
        _ = chmod(file, 0o600)
        print("\(user) can log in to the page (\(file)).")
    }

    /// Reads a line from the terminal without echo.
    static func prompt(_ text: String) -> String? {
        guard let raw = getpass(text) else { return nil }
        return String(cString: raw)
    }
}
