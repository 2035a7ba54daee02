import Foundation
import HummingbirdBcrypt

/// Who may use the page: `user:hash` lines, where the hash is bcrypt (`$2b$`, `$2y$` or `$2a$`,
/// as `housectl web passwd` or Apache's `htpasswd -B` writes them). `#` starts a comment.
/// Passwords are never stored in the clear, and never logged.
public struct WebPasswordFile: Sendable, Equatable {
    let hashes: [String: String]
    /// Checked for a user who does not exist.
    let dummy: String

    /// Parses the text of a password file; `path` names it in errors.
    public init(contents: String, path: String) throws(WebError) {
        var hashes: [String: String] = [:]
        for (index, raw) in contents.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw .passwordFile(path: path, line: index + 1, message: "expected 'user:bcrypt-hash' (housectl web passwd writes one)")
            }
            let hash = String(line[line.index(after: colon)...])
            guard Self.isBcrypt(hash) else {
                throw .passwordFile(path: path, line: index + 1,
                                    message: "the password of '\(line[..<colon])' is not a bcrypt hash ($2b$...): passwords are never kept in the clear; run housectl web passwd")
            }
            hashes[String(line[..<colon])] = hash
        }
        guard !hashes.isEmpty else { throw .passwordFile(path: path, line: 0, message: "no user in the file (housectl web passwd adds one)") }
        self.hashes = hashes
        // "$2b$10$" + 53 characters of salt and hash, made of a password nobody has.
        let cost = hashes.values.sorted().first.flatMap { UInt8($0.dropFirst(4).prefix(2)) } ?? 10
        dummy = Bcrypt.hash(WebSessions.token(), cost: max(4, min(cost, 31)))
    }

    /// Reads and parses the file at `path`.
    public init(path: String) throws(WebError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .passwordFile(path: path, line: 0, message: "cannot read the file")
        }
        try self.init(contents: String(decoding: data, as: UTF8.self), path: path)
    }

    /// Whether `user` exists and `password` is theirs (bcrypt's own time, whoever asks: an
    /// unknown user is checked against a hash of the same cost as the file's first, so that
    /// timing does not tell users apart). Blocks for bcrypt's time: call it off the concurrency pool.
    public func check(user: String, password: String) -> Bool {
        guard let hash = hashes[user] else {
            _ = Bcrypt.verify(password, hash: dummy)
            return false
        }
        return Bcrypt.verify(password, hash: hash)
    }

    /// The line for `user` with a new bcrypt hash of `password` (cost 10: about 0.1 s on a Pi 4).
    public static func entry(user: String, password: String, cost: UInt8 = defaultCost) -> String {
        "\(user):\(Bcrypt.hash(password, cost: cost))"
    }

    /// bcrypt's cost for new entries: 2^10 rounds.
    public static var defaultCost: UInt8 { 10 }

    static func isBcrypt(_ hash: String) -> Bool {
        ["$2a$", "$2b$", "$2y$"].contains { hash.hasPrefix($0) } && hash.count == 60
    }

}
