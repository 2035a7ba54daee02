import HouseCore
import HouseGPIO

/// `HouseService`'s relay seam on this node's `RelayBank`: every relay command of every path
/// goes through the bank, which enforces interlocks, pulses, max-on and anti-chatter.
struct RelayBankDriver<C: Clock>: RelayDriver where C.Duration == Duration {
    let bank: RelayBank<C>
    /// The relay bank's id per relay channel of this node (a device's, or a cover winding's).
    let devices: [RelayRef: DeviceID]

    init(bank: RelayBank<C>, configuration: HouseConfiguration, node: NodeID) {
        self.bank = bank
        var devices: [RelayRef: DeviceID] = [:]
        for d in configuration.devices where d.node == node {
            for (id, ref) in d.relayChannels { devices[ref] = id }
        }
        self.devices = devices
    }

    func setRelay(_ relay: RelayRef, on: Bool) async throws -> RelayTiming {
        try await perform(on ? .on : .off, relay)
    }

    func pulseRelay(_ relay: RelayRef, for duration: Duration) async throws -> RelayTiming {
        try await perform(.pulse(duration), relay)
    }

    private func perform(_ command: RelayCommand, _ relay: RelayRef) async throws(DaemonError) -> RelayTiming {
        guard let device = devices[relay] else {
            throw .relay(device: "\(relay.node)/\(relay.channel)", reason: "no relay on this node at that channel")
        }
        let result = await bank.perform(command, on: device)
        switch result {
        case .refused(let why):
            throw .relay(device: device.rawValue, reason: why.description)
        case .switched:
            // Saved and published by the bank's observer (`RelayEdgeFollower`) at the edge,
            // before the command is answered.
            break
        case .scheduled, .coalesced:
            // The safety rules defer the switch: the answer says so instead of a plain "done".
            return .later(note: result.description)
        case .unchanged, .retimed:
            break
        }
        return .now
    }
}
