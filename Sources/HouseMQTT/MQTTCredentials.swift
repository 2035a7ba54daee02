import Foundation

/// User name and password for the broker. The password is read when connecting, from a file, an
/// environment variable or (for tests) a literal; it never appears in logs or descriptions.
public struct MQTTCredentials: Sendable, Hashable, CustomStringConvertible {
    /// Where the password comes from.
    public enum PasswordSource: Sendable, Hashable, CustomStringConvertible {
        /// No password, user name only.
        case none
        /// The first line of this file (trailing newline removed).
        case file(String)
        /// The value of this environment variable.
        case environment(String)
        /// A password given in code (tests). Redacted in descriptions.
        case literal(String)

        public var description: String {
            switch self {
            case .none: return "no password"
            case .file(let path): return "password from file \(path)"
            case .environment(let name): return "password from $\(name)"
            case .literal: return "password <redacted>"
            }
        }
    }

    /// The MQTT user name.
    public var username: String
    /// Where the password is read from when connecting.
    public var password: PasswordSource

    public init(username: String, password: PasswordSource = .none) {
        self.username = username
        self.password = password
    }

    public var description: String { "user \(username), \(password)" }

    /// Reads the password now. Throws `MQTTError.credentialsUnavailable` naming the file or variable.
    func resolvePassword(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        switch password {
        case .none:
            return nil
        case .literal(let value):
            return value
        case .environment(let name):
            guard let value = environment[name] else {
                throw MQTTError.credentialsUnavailable("environment variable \(name) is not set")
            }
            return value
        case .file(let path):
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw MQTTError.credentialsUnavailable("cannot read password file \(path): \(error.localizedDescription)")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw MQTTError.credentialsUnavailable("password file \(path) is not UTF-8")
            }
            let firstLine = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let password = firstLine.hasSuffix("\r") ? String(firstLine.dropLast()) : String(firstLine)
            if password.isEmpty { throw MQTTError.credentialsUnavailable("password file \(path) is empty") }
            return password
        }
    }
}
