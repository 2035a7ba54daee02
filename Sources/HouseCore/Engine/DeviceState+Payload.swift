extension DeviceState {
    private static let onPayload = Array(DeviceState.on.rawValue.utf8)
    private static let offPayload = Array(DeviceState.off.rawValue.utf8)

    /// The state as a state topic's payload (`ON`, `OFF`): one shared array per state, so a
    /// message holding it costs no allocation of its own.
    public var payload: [UInt8] { self == .on ? Self.onPayload : Self.offPayload }
}
