/// Relay commands between nodes: the coordinator resolves an intent and sends each relay of
/// another node its command (`PeerRelayCommand` on that node's peer topic); the owner carries it
/// out through its own relays, so that interlocks and timers hold where the relays are.
extension HouseEngine {
    /// Carries out a relay command another node resolved, through the same relays and safety
    /// rules as this node's own intents. Nil when the device is not a relay of this node.
    public func handlePeer(_ command: PeerRelayCommand) -> HouseResponse? {
        guard let d = configuration.device(id: command.device), let owner = d.node, node == nil || owner == node else { return nil }
        if d.motor != nil {
            guard command.position != nil || command.stop == true else { return nil }
            let (commands, dialog) = coverCommands(d, target: command.position)
            let execution = execute(commands)
            return HouseResponse(code: execution.failure == nil ? .success : .failure,
                                 dialog: execution.failure ?? execution.answer(dialog), commands: commands)
        }
        guard let ref = d.relay ?? d.opener?.relay else { return nil }
        let commands: [DeviceCommand] = command.pulse.map { [.pulse(device: d.id, ref, $0)] }
            ?? [.relay(device: d.id, ref, command.state ?? .off)]
        let execution = execute(commands)
        return HouseResponse(code: execution.failure == nil ? .success : .failure,
                             dialog: execution.failure ?? execution.answer(commands.map(\.description).joined(separator: ", ")),
                             commands: commands)
    }

    /// Where a relay of another node is commanded: that node's own command topic, which only
    /// controllers may write (its `set` topic is for automations, and is resolved again there).
    func peerTopic(_ ref: RelayRef) -> String { PeerRelayCommand.topic(base: configuration.mqtt.baseTopic, node: ref.node) }

    /// A relay command for another node, with the id of the command being handled and the device.
    func peerPayload(_ command: PeerRelayCommand) -> String {
        var command = command
        command.id = commandID.map { "\($0)/\(command.device)" }
        return command.json
    }
}
