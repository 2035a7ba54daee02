/// Covers: planning their moves from the time-based position, and following their windings.
extension HouseEngine {
    /// A cover's position as the house knows it (closed and assumed before anything is known).
    public func coverPosition(of cover: DeviceID) -> CoverPosition { covers[cover] ?? .unknown }

    /// A cover's place now, for its topics and answers: state, whole percent and whether assumed.
    public func coverReport(of cover: Device) -> CoverReport? {
        guard let motor = cover.motor else { return nil }
        let p = coverPosition(of: cover.id)
        let now = clock.now
        return CoverReport(state: p.state(at: now, motor: motor), position: p.percent(at: now, motor: motor), assumed: p.assumed)
    }

    /// Restores the positions recorded before a restart, each assumed until the cover next
    /// travels fully (it may have been moved by hand, or the power cut while it moved).
    public func restoreCovers(_ positions: [DeviceID: Double]) {
        for (id, position) in positions where configuration.device(id: id)?.motor != nil {
            covers[id] = CoverPosition(position: position, assumed: true)
        }
    }

    /// A winding of a cover of this node switched at `instant` (the relay bank's edge): the
    /// cover starts or stops moving. Returns the cover, nil for a relay that is no winding.
    public func noteWinding(_ relay: DeviceID, on: Bool, at instant: WallInstant) -> Device? {
        guard let (cover, direction) = winding(relay), let motor = cover.motor else { return nil }
        var p = coverPosition(of: cover.id)
        if on { p.started(direction, at: instant, motor: motor) } else { p.stopped(direction, at: instant, motor: motor) }
        covers[cover.id] = p
        return cover
    }

    /// What another node published about its cover (the primary follows it for answers).
    public func noteCoverReport(_ cover: DeviceID, _ report: CoverReport) {
        covers[cover] = CoverPosition(position: Double(report.position), assumed: report.assumed)
    }

    /// The cover and direction of a winding's relay id (`CoverMotor.windingID`).
    func winding(_ relay: DeviceID) -> (Device, CoverDirection)? {
        let text = relay.rawValue
        guard let slash = text.lastIndex(of: "/"), let direction = CoverDirection(rawValue: String(text[text.index(after: slash)...])),
              let cover = configuration.device(id: DeviceID(String(text[..<slash]))), cover.motor != nil else { return nil }
        return (cover, direction)
    }

    /// Where `action` takes a cover: a position 0-100, nil for stop (and for a toggle of a
    /// moving cover, which stops it).
    func coverTarget(_ cover: Device, action: HouseAction, position: Int?) -> Int? {
        switch action {
        case .open, .on: return 100
        case .close: return 0
        case .stop, .off: return nil
        case .position: return position.map { min(100, max(0, $0)) }
        case .toggle:
            let p = coverPosition(of: cover.id)
            if p.motion != nil { return nil }
            return p.position <= 0 ? 100 : 0
        }
    }

    /// The commands that bring `cover` to `target` (nil: stop), and the answer that goes with
    /// them. A stop switches both windings off whatever the house believes; a run is a pulse of
    /// the winding of the way, which the relay bank ends on time (and which, while the other
    /// winding runs, first stops it and waits the dead time).
    func coverCommands(_ cover: Device, target: Int?) -> (commands: [DeviceCommand], dialog: String) {
        guard let motor = cover.motor else { return ([], HouseDialog.failed("\(cover.id) is not a cover")) }
        let label = configuration.label(for: cover)
        let p = coverPosition(of: cover.id)
        let now = clock.now
        if motor.node != node, node != nil {
            // Another node's cover: that node plans the move from its own position.
            let command = PeerRelayCommand(device: cover.id, position: target)
            let dialog = target.map { HouseDialog.coverMoving(label, toward: $0) } ?? HouseDialog.coverStopped(label, at: p.percent(at: now, motor: motor))
            return ([.publish(device: cover.id, topic: peerTopic(motor.winding(.up)), payload: peerPayload(command), state: nil)], dialog)
        }
        let plan = target.map { p.plan(toward: $0, at: now, motor: motor) } ?? .stop
        switch plan {
        case .run(let direction, let duration, let to):
            let id = CoverMotor.windingID(of: cover.id, direction)
            return ([.pulse(device: id, motor.winding(direction), duration)], HouseDialog.coverMoving(label, toward: to))
        case .stop:
            let off = CoverDirection.allCases.map { DeviceCommand.relay(device: CoverMotor.windingID(of: cover.id, $0), motor.winding($0), .off) }
            return (off, HouseDialog.coverStopped(label, at: p.percent(at: now, motor: motor)))
        case .stay(let at):
            return ([], HouseDialog.coverAlready(label, at: at))
        }
    }

    /// How often a moving cover's position goes out: Home Assistant's slider follows the cover.
    static let coverReportInterval: Duration = .seconds(1)

    /// A winding of a cover of this node went on or off at `instant` (the relay bank's edge): the
    /// cover starts or stops moving; its state and position are published (and then every
    /// `coverReportInterval` while it moves), and on a stop its position is recorded.
    func coverEdge(relay: DeviceID, on: Bool, at instant: WallInstant) {
        guard let cover = noteWinding(relay, on: on, at: instant) else { return }
        publishCover(cover)
        if on, coverReportDue == nil { coverReportDue = instant.advanced(by: Self.coverReportInterval) }
        if !on, let report = coverReport(of: cover) { effects.records.append(.coverPosition(cover.id, Double(report.position))) }
    }

    /// The positions of the covers that move now (their state is unchanged), and when next.
    func reportMovingCovers(at now: WallInstant) {
        var moving = false
        for cover in configuration.devices where cover.motor != nil && covers[cover.id]?.motion != nil {
            publishCover(cover, withState: false)
            moving = true
        }
        coverReportDue = moving ? now.advanced(by: Self.coverReportInterval) : nil
    }

    /// Publishes a cover's position (0-100), then its state (`opening`, `open`, ...: a stop part
    /// way is `open`), then both as its report, each retained.
    func publishCover(_ cover: Device, withState: Bool = true) {
        guard let report = coverReport(of: cover) else { return }
        effects.publish(layout.devicePosition(room: cover.room, device: cover.id), "\(report.position)", retain: true)
        if withState { effects.publish(layout.deviceState(room: cover.room, device: cover.id), report.state.payload, retain: true) }
        effects.publish(layout.deviceReport(room: cover.room, device: cover.id), report.json, retain: true)
    }
}
