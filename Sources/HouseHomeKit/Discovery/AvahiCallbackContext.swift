/// What avahi's C callbacks find through their user data: the closure an avahi object's handle
/// was made with, told the object's pointer and its new state on the loop's thread.
final class AvahiCallbackContext<State> {
    typealias Handler = (OpaquePointer, State) -> Void
    let onState: Handler

    init(_ onState: @escaping Handler) {
        self.onState = onState
    }

    /// The user data to give avahi; valid while this context is kept (by the handle).
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Calls the context behind `userdata` (kept alive for the call: a handler may release its handle).
    static func deliver(_ object: OpaquePointer?, _ state: State, _ userdata: UnsafeMutableRawPointer?) {
        guard let object, let userdata else { return }
        let context = Unmanaged<AvahiCallbackContext>.fromOpaque(userdata).takeUnretainedValue()
        withExtendedLifetime(context) { context.onState(object, state) }
    }
}
