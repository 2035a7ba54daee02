/// What can go wrong with the page: its configuration, its password file, its listener.
public enum WebError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The password file cannot be read, or a line of it is not `user:bcrypt-hash`.
    case passwordFile(path: String, line: Int, message: String)
    /// The listener could not start (the port is taken, the address is not this machine's).
    case cannotListen(address: String, port: Int, reason: String)

    public var description: String {
        switch self {
        case .passwordFile(let path, let line, let message):
            line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)"
        case .cannotListen(let address, let port, let reason):
            "cannot serve the page on \(address):\(port): \(reason) (is something else listening there? set web.port to another port)"
        }
    }
}
