import Hummingbird
import NIOCore

/// What a request to the page carries besides itself: the address it came from (for the login
/// limit) and, once `WebGuard` let it through, its session (nil without a password file).
public struct WebContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address ("local" where there is none, as in router tests).
    public let remoteAddress: String
    public var session: WebSessions.Session?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress ?? "local"
        session = nil
    }
}
