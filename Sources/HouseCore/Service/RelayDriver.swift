/// The seam between `HouseService` and the relays wired to this node.
///
/// `HouseGPIO`'s `RelayBank` implements it on real or simulated GPIO (with its safety policies:
/// interlocks, max-on, min-interval); `HouseTesting.FakeRelayDriver` records calls for tests.
public protocol RelayDriver: Sendable {
    /// Switch a relay channel of this node on or off.
    func setRelay(_ relay: RelayRef, on: Bool) async throws
    /// Close a relay for `duration`, then open it (a button press, e.g. a garage door opener).
    func pulseRelay(_ relay: RelayRef, for duration: Duration) async throws
}
