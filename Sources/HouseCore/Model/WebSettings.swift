/// The page `housectl serve` serves (`web:` in house.yaml); off when the section is absent.
public struct WebSettings: Sendable, Equatable {
    /// The address to listen on: loopback unless configured.
    public var bind: String
    /// The TCP port (0: any free port, for tests).
    public var port: Int
    /// A file of `user:bcrypt-hash` lines (`housectl web passwd` writes one): with it, the page
    /// asks for a user and password. Required when `bind` reaches beyond this machine.
    public var passwordFile: String?

    public init(bind: String = "127.0.0.1", port: Int = 8080, passwordFile: String? = nil) {
        self.bind = bind
        self.port = port
        self.passwordFile = passwordFile
    }

    /// Whether `bind` is only reachable from this machine.
    public var isLoopback: Bool { Self.isLoopback(bind) }

    /// Whether `address` is a loopback address or name (127.0.0.0/8, ::1, localhost).
    public static func isLoopback(_ address: String) -> Bool {
        let a = address.lowercased()
        return a == "localhost" || a == "::1" || a == "[::1]" || a.hasPrefix("127.")
    }
}
