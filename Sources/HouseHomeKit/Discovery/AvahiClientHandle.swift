import CAvahi

/// One connection to avahi-daemon over the D-Bus system bus (an `AvahiClient`). Made with
/// `waitForDaemon` it exists even while the daemon is not running: it waits in `CONNECTING` and
/// moves on when the daemon appears. Its state changes go to `onState` on the loop's thread,
/// the first one from inside `init` (with the new client's pointer, as `self` is not made yet).
/// Freeing it frees its entry groups: their handles must go first.
final class AvahiClientHandle: @unchecked Sendable {
    typealias Context = AvahiCallbackContext<AvahiClientState>

    let pointer: OpaquePointer
    private let context: Context
    /// The loop the client runs on, kept as long as the client.
    private let poll: AvahiPollThread

    init(poll: AvahiPollThread, waitForDaemon: Bool, onState: @escaping Context.Handler) throws(HomeKitError) {
        let context = Context(onState)
        var error: Int32 = 0
        let flags = waitForDaemon ? AVAHI_CLIENT_NO_FAIL : AvahiClientFlags(rawValue: 0)
        guard let pointer = avahi_client_new(poll.api, flags, { Context.deliver($0, $1, $2) }, context.userdata, &error) else {
            throw .avahi("avahi_client_new", error)
        }
        self.pointer = pointer
        self.context = context
        self.poll = poll
    }

    /// avahi's last error on this client.
    var errorCode: Int32 { avahi_client_errno(pointer) }

    deinit {
        avahi_client_free(pointer)
    }
}
