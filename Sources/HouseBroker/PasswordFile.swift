import Foundation

/// User names and passwords the broker accepts.
///
/// One entry per line, `#` starts a comment, blank lines are ignored:
/// ```
/// alice:plain-text-password
/// bob:$sha256$SALT$HEX
/// ```
/// The hashed form stores `SALT` (any text without `$`) and `HEX`, the lower-case hex SHA-256 of
/// the bytes of SALT followed by the password, e.g. `printf '%s' "SALTpassword" | sha256sum`.
public struct PasswordFile: Sendable, Equatable {
    enum Secret: Sendable, Equatable {
        case plain(String)
        case sha256(salt: String, hex: String)
    }

    let entries: [String: Secret]

    /// Parses the text of a password file; `path` only names the file in errors.
    public init(contents: String, path: String = "<password file>") throws {
        var entries: [String: Secret] = [:]
        for (index, raw) in contents.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw HouseBrokerError.invalidConfigurationFile(path: path, line: index + 1, message: "expected 'user:password'")
            }
            let user = String(line[..<colon])
            let secret = String(line[line.index(after: colon)...])
            if secret.hasPrefix("$sha256$") {
                let parts = secret.split(separator: "$", omittingEmptySubsequences: false)
                // "", "sha256", salt, hex
                guard parts.count == 4, parts[3].count == 64, parts[3].allSatisfy(\.isHexDigit) else {
                    throw HouseBrokerError.invalidConfigurationFile(path: path, line: index + 1,
                        message: "expected '$sha256$SALT$HEX' with 64 hex digits")
                }
                entries[user] = .sha256(salt: String(parts[2]), hex: parts[3].lowercased())
            } else {
                entries[user] = .plain(secret)
            }
        }
        self.entries = entries
    }

    /// Reads and parses the password file at `path`.
    public init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw HouseBrokerError.invalidConfigurationFile(path: path, line: 0, message: "cannot read the file")
        }
        try self.init(contents: text, path: path)
    }

    /// Whether `user` exists and `password` is theirs.
    public func check(user: String, password: [UInt8]) -> Bool {
        switch entries[user] {
        case .none: return false
        case .plain(let expected): return Array(expected.utf8) == password
        case .sha256(let salt, let hex): return SHA256.hex(Array(salt.utf8) + password) == hex
        }
    }

    /// The hashed line for a password file: `user:$sha256$SALT$HEX`.
    public static func hashedEntry(user: String, password: String, salt: String) -> String {
        "\(user):$sha256$\(salt)$\(SHA256.hex(Array((salt + password).utf8)))"
    }
}
