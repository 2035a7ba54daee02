/// Covers worked by a push-button opener (a garage door): where they are, from their contacts
/// and the last press, and what a command presses.
extension HouseEngine {
    /// A press of an opener's button, as the node that owns it made it.
    public struct OpenerPress: Sendable, Equatable {
        public var at: WallInstant
        /// The way it was sent (from the state before the press); nil when that could not be told.
        public var toward: CoverDirection?
    }

    /// Where an opener's cover is: its contacts say open or closed; between them, moving since
    /// the last press (toward the end the press was for), obstructed once the deadline passed
    /// with the contact of that end still silent, or stopped part way. With no contact at all,
    /// unknown. Another node's opener: what its state topic last said.
    public func openerState(of cover: Device) -> CoverState {
        guard let opener = cover.opener else { return .unknown }
        if let node, opener.node != node { return openerReports[cover.id] ?? .unknown }
        if let c = opener.closedContact, state(of: c) == .on { return .closed }
        if let c = opener.openContact, state(of: c) == .on { return .open }
        guard opener.hasContacts else { return .unknown }
        guard let press = openerPresses[cover.id], let toward = press.toward else {
            return openerObstructed.contains(cover.id) ? .obstructed : .stopped
        }
        if press.at.duration(to: clock.now) < opener.deadline { return toward == .up ? .opening : .closing }
        // The end it went for has no contact: after the deadline it is taken to be there.
        if toward == .up, opener.openContact == nil { return .open }
        if toward == .down, opener.closedContact == nil { return .closed }
        return .obstructed
    }

    /// What another node published as its opener's state (the primary follows it).
    public func noteOpenerReport(_ cover: DeviceID, _ state: CoverState) {
        openerReports[cover] = state
    }

    /// The commands for `action` on an opener and the answer: one press when it moves the cover
    /// where it is asked to go (or stops it), none when it is there already or on its way.
    func openerCommands(_ cover: Device, action: HouseAction) -> (commands: [DeviceCommand], dialog: String) {
        guard let opener = cover.opener else { return ([], HouseDialog.failed("\(cover.id) is not an opener")) }
        let label = configuration.label(for: cover)
        let state = openerState(of: cover)
        let moving = state == .opening || state == .closing
        var toward: CoverDirection?
        let press: Bool
        switch action {
        case .open, .on:
            toward = .up
            press = state != .open && state != .opening
        case .close:
            toward = .down
            press = state != .closed && state != .closing
        case .stop, .off:
            toward = nil
            press = moving
        case .toggle:
            toward = state == .open || state == .opening ? .down : .up
            press = true
        case .position:
            return ([], "The \(label) has no position: it opens or closes.")
        }
        if !opener.hasContacts && node.map({ $0 == opener.node }) ?? true {
            // Nothing to tell where it is: every press goes (the old push-button behaviour).
            return ([pressCommand(cover, opener)], HouseDialog.pulsed(label, action: action))
        }
        guard press else { return ([], HouseDialog.openerAnswer(label, pressed: false, state: state, toward: toward)) }
        return ([pressCommand(cover, opener)], HouseDialog.openerAnswer(label, pressed: true, state: state, toward: toward))
    }

    private func pressCommand(_ cover: Device, _ opener: CoverOpener) -> DeviceCommand {
        if node == nil || opener.node == node { return .pulse(device: cover.id, opener.relay, opener.pulse) }
        return .publish(device: cover.id, topic: peerTopic(opener.relay), payload: peerPayload(PeerRelayCommand(device: cover.id, pulse: opener.pulse)), state: nil)
    }

    /// Records a press of an opener of this node (the way it goes follows from where it was).
    func notePress(_ cover: Device) {
        guard cover.opener != nil else { return }
        let before = openerState(of: cover)
        let toward: CoverDirection? = switch before {
        case .closed: .up
        case .open: .down
        default: nil
        }
        openerPresses[cover.id] = OpenerPress(at: clock.now, toward: toward)
        openerObstructed.remove(cover.id)
    }

    /// A contact of an opener changed: at an end, the press is over. Returns the opener.
    public func noteOpenerContact(_ contact: DeviceID) -> Device? {
        guard let cover = configuration.devices.first(where: { $0.opener?.openContact == contact || $0.opener?.closedContact == contact })
        else { return nil }
        let s = openerState(of: cover)
        if s == .open || s == .closed {
            openerPresses[cover.id] = nil
            openerObstructed.remove(cover.id)
        }
        return cover
    }

    /// When the next press of an opener of this node runs out of time, if one is under way.
    public var nextOpenerDeadline: WallInstant? {
        openerPresses.compactMap { id, press in
            configuration.device(id: id)?.opener.map { press.at.advanced(by: $0.deadline) }
        }.min()
    }

    /// The openers whose press ran out of time by now: obstructed (or, toward an end with no
    /// contact, taken to be there). Returns them with their new state.
    public func expireOpenerPresses() -> [(Device, CoverState)] {
        var out: [(Device, CoverState)] = []
        for (id, press) in openerPresses {
            guard let cover = configuration.device(id: id), let opener = cover.opener,
                  press.at.advanced(by: opener.deadline) <= clock.now else { continue }
            let state = openerState(of: cover)
            openerPresses[id] = nil
            if state == .obstructed { openerObstructed.insert(id) }
            out.append((cover, state))
        }
        return out.sorted { $0.0.id < $1.0.id }
    }

    /// The presses that ran out of time: each opener's state published, and an `obstructed`
    /// event for one whose end's contact stayed silent.
    func checkOpeners() {
        for (cover, state) in expireOpenerPresses() {
            publishOpener(cover)
            guard state == .obstructed, let opener = cover.opener else { continue }
            let text = "The \(configuration.label(for: cover)) did not reach its end within \(DurationParser.format(opener.deadline)) of the press: it may be obstructed."
            effects.log(.warning, "\(cover.id): \(text)")
            effects.publish(layout.events, Self.json(["event": "obstructed", "device": cover.id.rawValue, "text": text]), retain: false)
        }
    }

    /// Publishes an opener's state (`open`, `closing`, `obstructed`, `None` when unknown), retained.
    func publishOpener(_ cover: Device) {
        effects.publish(layout.deviceState(room: cover.room, device: cover.id), openerState(of: cover).payload, retain: true)
    }
}
