extension Device {
    /// Whether `action` brings this device to its safe state: off for a switched device (a
    /// heater, a pump, a plug), stop for a cover. Such a command needs no yes and no
    /// permission to confirm, from any source: whoever can reach the house may always switch a
    /// heater off. A pulsed device (a garage door opener) has no safe action: every pulse moves
    /// the door. A denied device (`permissions.<source>.deny_devices`) stays denied.
    public func isSafe(_ action: HouseAction) -> Bool {
        guard pulse == nil, opener == nil else { return false }
        switch action {
        case .off, .stop: return true
        case .close: return kind != .cover
        case .on, .open, .toggle, .position: return false
        }
    }

    /// Whether switching this device with `action` needs a yes (`confirm: true`, unless the
    /// action is safe).
    public func needsConfirmation(for action: HouseAction) -> Bool {
        confirm && !isSafe(action)
    }
}
