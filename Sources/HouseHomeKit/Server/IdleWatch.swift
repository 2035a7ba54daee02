import HouseCore
import Synchronization

/// When an unverified connection's silence ends it: the deadline moves on with each request, and
/// is gone once the connection is verified.
final class IdleWatch: Sendable {
    private let state: Mutex<WallInstant?>

    init(deadline: WallInstant) {
        state = Mutex(deadline)
    }

    var deadline: WallInstant? { state.withLock { $0 } }
    func extend(to deadline: WallInstant) { state.withLock { if $0 != nil { $0 = deadline } } }
    func end() { state.withLock { $0 = nil } }
}
