
/// The controller restarted in the same boot (an upgrade, `systemctl restart`, a crash), not
/// after a power cut: every relay keeps the state it had, and max-on watchdogs resume.
public struct RelayRestart: Sendable, Equatable {
    /// How long each relay that is on has been on already (from the recorded state's time).
    public var onFor: [DeviceID: Duration]

    public init(onFor: [DeviceID: Duration] = [:]) { self.onFor = onFor }
}
