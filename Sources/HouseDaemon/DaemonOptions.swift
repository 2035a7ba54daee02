import Foundation

/// How `housectl serve` was asked to run: what the command line and environment say, before the
/// configuration is loaded.
public struct DaemonOptions: Sendable {
    /// Which GPIO backend to use.
    public enum GPIOChoice: Sendable, Equatable {
        /// The real chip when one exists, simulated relays (with a warning) otherwise.
        case automatic
        /// Simulated relays.
        case simulated
        /// This chip (name, path, label or number).
        case chip(String)

        /// Parses `--gpio sim|auto|CHIP`.
        public init(_ text: String) {
            switch text.lowercased() {
            case "sim", "simulated": self = .simulated
            case "auto", "": self = .automatic
            default: self = .chip(text)
            }
        }
    }

    public var configPath: String
    /// This node's id; nil picks the only node, or the one named like the host.
    public var node: String?
    public var stateDirectory: String
    public var gpio: GPIOChoice
    /// `HOST:PORT` overriding the config's broker.
    public var brokerOverride: String?

    public init(
        configPath: String = "config/house.yaml",
        node: String? = nil,
        stateDirectory: String? = nil,
        gpio: GPIOChoice = .automatic,
        brokerOverride: String? = nil
    ) {
        self.configPath = configPath
        self.node = node
        self.stateDirectory = stateDirectory ?? DaemonOptions.defaultStateDirectory()
        self.gpio = gpio
        self.brokerOverride = brokerOverride
    }

    /// `$STATE_DIRECTORY` under systemd, else `$XDG_STATE_HOME/housectl`, else `~/.local/state/housectl`.
    public static func defaultStateDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let systemd = environment["STATE_DIRECTORY"], !systemd.isEmpty {
            return systemd.split(separator: ":").first.map(String.init) ?? systemd
        }
        if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty { return xdg + "/housectl" }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/state/housectl"
    }

    /// The SQLite file in the state directory.
    public var databasePath: String { stateDirectory + "/housectl.sqlite" }

    /// Splits `HOST:PORT` (`[::1]:1883` too); nil when malformed.
    public static func parseHostPort(_ text: String) -> (host: String, port: Int)? {
        var host = Substring(text)
        var portText: Substring
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            guard after.hasPrefix(":") else { return nil }
            portText = after.dropFirst()
            host = host[host.index(after: host.startIndex)..<close]
        } else {
            guard let colon = host.lastIndex(of: ":") else { return nil }
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty, let port = Int(portText), (1...65535).contains(port) else { return nil }
        return (String(host), port)
    }
}
