/// The seam between `HouseService` and the relays wired to this node.
///
/// `HouseGPIO`'s `RelayBank` implements it on real or simulated GPIO (with its safety policies:
/// interlocks, max-on, min-interval); `HouseTesting.FakeRelayDriver` records calls for tests.
public protocol RelayDriver: Sendable {
    /// Switch a relay channel of this node on or off.
    @discardableResult
    func setRelay(_ relay: RelayRef, on: Bool) async throws -> RelayTiming
    /// Close a relay for `duration`, then open it (a button press, e.g. a garage door opener).
    @discardableResult
    func pulseRelay(_ relay: RelayRef, for duration: Duration) async throws -> RelayTiming
}

/// When an accepted relay command takes effect.
public enum RelayTiming: Sendable, Equatable {
    /// Done now (or nothing to do).
    case now
    /// Accepted, and carried out later by the relay's safety rules (a minimum interval, an
    /// interlock's dead time); `note` says when and why, e.g. "will switch ON in 3s: minimum
    /// interval of 5s between switchings".
    case later(note: String)
}
