import Foundation
import Signals

/// The house's business logic, shared by every path in (CLI, MQTT, routines, rules): device
/// state, modes, actuation through the relay and MQTT seams, energy accounting on an injected
/// clock, and the donations of handled intents.
///
/// `IntentPipeline` resolves and confirms intents, then calls `handle(_:...)`.
public actor HouseService {
    /// The lane the engine shares (see `EngineExecutor`): the command bus's consumer, the
    /// gateway and the relay bank run on it too, so calls between them never wait for a thread.
    public nonisolated let executor: EngineExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    public nonisolated let configuration: HouseConfiguration
    /// This node's id: its relays are switched through `relays`, other nodes' relays through
    /// their MQTT `set` topics. Nil means every relay is local (one node, or a simulation).
    public nonisolated let node: NodeID?
    let relays: (any RelayDriver)?
    let publisher: (any MQTTPublisher)?
    /// The clock every time in the service is read from.
    public nonisolated let clock: any WallClock

    var states: [DeviceID: DeviceState] = [:]
    /// The mode timeline of each room that ever had a mode: its base mode and timed layers.
    var timelines: [RoomID: ModeTimeline] = [:]
    var busyUntil: [DeviceID: WallInstant] = [:]
    /// Other nodes' last reported status (their retained status topic): true online, false
    /// offline (their relays cannot be switched from here); absent when never reported.
    var nodeOnline: [NodeID: Bool] = [:]
    var ledger = EnergyLedger()
    /// Each cover's position (see `HouseService+Covers`).
    var covers: [DeviceID: CoverPosition] = [:]
    /// The last press of each opener of this node still under way, the openers that did not
    /// reach their end in time, and other nodes' openers' states (see `HouseService+Openers`).
    var openerPresses: [DeviceID: OpenerPress] = [:]
    var openerObstructed: Set<DeviceID> = []
    var openerReports: [DeviceID: CoverState] = [:]
    /// Each sensor's latest reading.
    var readings: [DeviceID: SensorReading] = [:]
    /// Told every time a metered device starts or stops using energy (see `recordEnergy`).
    var energyRecorder: (@Sendable (EnergyEdge) -> Void)?
    /// Today in the house's time zone, `[start, end)`: energy today is asked for after every
    /// command, and working out the day with the calendar each time cost more than the sum.
    var today: (start: WallInstant, end: WallInstant)?
    var donationLog = RecentLog<Donation>(limit: HouseService.donationMemoryLimit)
    /// The id of the command being handled (a request id, a routine run), stamped with the device
    /// on the relay commands sent to other nodes so that they carry out a repeat once.
    var commandID: String?
    var donationListeners: [UUID: AsyncStream<Donation>.Continuation] = [:]

    /// - Parameters:
    ///   - relays: this node's relays; nil when it has none (relay commands then fail clearly).
    ///   - publisher: the MQTT connection; nil when offline (MQTT commands then fail clearly).
    ///   - clock: the wall clock used for energy, pulses, mode durations and donations.
    ///   - executor: the engine's lane, shared with the relay bank and the command path.
    public init(configuration: HouseConfiguration, node: NodeID? = nil, relays: (any RelayDriver)? = nil,
                publisher: (any MQTTPublisher)? = nil, clock: any WallClock = SystemWallClock(),
                executor: EngineExecutor = EngineExecutor()) {
        self.executor = executor
        self.configuration = configuration
        self.node = node
        self.relays = relays
        self.publisher = publisher
        self.clock = clock
    }

    // MARK: State

    /// The last known state of a device (off until something says otherwise).
    public func state(of device: DeviceID) -> DeviceState { states[device] ?? .off }

    /// Records a state reported from outside (a relay read back at start, an MQTT state topic).
    public func noteState(_ device: DeviceID, _ state: DeviceState) {
        setState(device, state)
    }

    /// Records a sensor's reading (a value from its topic, or why its payload gave none).
    public func noteReading(_ device: DeviceID, _ reading: SensorReading) {
        readings[device] = reading
    }

    /// A sensor's latest reading; nil before the first.
    public func reading(of device: DeviceID) -> SensorReading? { readings[device] }

    /// Records another node's status (`online`/`offline`, its retained status topic): a relay
    /// of an offline node is refused with a reason instead of being sent into the void.
    public func noteNode(_ node: NodeID, online: Bool) {
        nodeOnline[node] = online
    }

    /// Each other node's status as last reported (absent: never heard).
    public var nodeStatuses: [NodeID: Bool] { nodeOnline }

    /// The mode of the whole house when every room is in the same mode, else nil.
    public var currentMode: ModeID? {
        let modes = Set(configuration.rooms.map { roomModes[$0.id] })
        guard modes.count == 1, let only = modes.first else { return nil }
        return only
    }

    /// The mode of each room that has one.
    public var modesByRoom: [RoomID: ModeID] { roomModes }

    var roomModes: [RoomID: ModeID] { modeSnapshot.roomModes }

    /// When the next temporary mode of any room ends, if one is set.
    public var modeExpiry: WallInstant? { modeSnapshot.nextExpiry.map(WallInstant.init) }

    /// Whether a device is mid-pulse (a garage door moving).
    public func isBusy(_ device: DeviceID) -> Bool {
        busyUntil[device].map { clock.now < $0 } ?? false
    }

    /// Kilowatt-hours used over `range` (in the house's time zone) by `devices`, or the whole house.
    public func energyUsed(in range: TimeRange, devices: [Device]? = nil) -> Double {
        let now = clock.now
        let span: (start: WallInstant, end: WallInstant)
        if case .today = range {
            span = (startOfToday(now), now)
        } else {
            span = EnergyLedger.span(of: range, now: now, calendar: HouseCalendar(house: configuration.house))
        }
        return ledger.kilowattHours(devices ?? configuration.devices, from: span.start, to: span.end, now: now)
    }

    /// The start of the house's day at `now` (cached until the day ends).
    private func startOfToday(_ now: WallInstant) -> WallInstant {
        if let today, today.start <= now, now < today.end { return today.start }
        let calendar = HouseCalendar(house: configuration.house)
        let day = calendar.localDate(of: now.date)
        let start = WallInstant(calendar.start(of: day))
        today = (start, WallInstant(calendar.start(of: day.adding(days: 1))))
        return start
    }

    // MARK: Donations

    /// How many donations the service keeps in memory (the newest). Few: the daemon reads only
    /// the last one (its `house/events` message) and keeps the history in SQLite; with 1,000 (up
    /// to 2,000 held between trims) the log alone was about 1 MB of a daemon's memory.
    public static var donationMemoryLimit: Int { 64 }

    /// Every donation recorded so far (the newest `donationMemoryLimit`), oldest first.
    public var donations: [Donation] { donationLog.elements }

    /// The donation recorded last.
    public var lastDonation: Donation? { donationLog.last }

    /// Donations as they are recorded from now on.
    public func donationStream() -> AsyncStream<Donation> {
        let (stream, continuation) = AsyncStream<Donation>.makeStream(bufferingPolicy: .bufferingNewest(256))
        donationListeners[UUID()] = continuation
        return stream
    }

    /// Records a donation (the pipeline does this after a successful handle).
    public func donate(_ donation: Donation) {
        // Bounded in a daemon that runs for months; the daemon persists history.
        donationLog.append(donation)
        for (id, c) in donationListeners {
            if case .terminated = c.yield(donation) { donationListeners[id] = nil }
        }
    }

    // MARK: Handle

    /// Carries out a resolved, confirmed intent; in a dry run, plans the commands without issuing
    /// them or changing any state.
    public func handle(_ resolved: ResolvedIntent, dryRun: Bool = false, commandID: String? = nil) async -> HouseResponse {
        self.commandID = commandID
        defer { self.commandID = nil }
        switch resolved {
        case .control(let devices, let action, let position):
            return await control(devices, action: action, position: position, dryRun: dryRun)
        case .setMode(let mode, let rooms, let duration):
            return await setMode(mode, rooms: rooms, duration: duration, dryRun: dryRun)
        case .query(let type, let range, let room, let devices, let place):
            return query(type, range: range, room: room, devices: devices, place: place)
        case .runRoutine(let routine):
            return HouseResponse(code: .failure, dialog: HouseDialog.failed("routine \(routine.id) must be run through IntentPipeline"))
        }
    }

    /// Carries out a relay command another node resolved (a `PeerRelayCommand`), through the same
    /// relay seam and safety rules as this node's own intents. Nil when the device is not a relay
    /// of this node.
    public func handlePeer(_ command: PeerRelayCommand) async -> HouseResponse? {
        guard let d = configuration.device(id: command.device), let owner = d.node, node == nil || owner == node else { return nil }
        if d.motor != nil {
            guard command.position != nil || command.stop == true else { return nil }
            let (commands, dialog) = coverCommands(d, target: command.position)
            let execution = await execute(commands)
            return HouseResponse(code: execution.failure == nil ? .success : .failure,
                                 dialog: execution.failure ?? execution.answer(dialog), commands: commands)
        }
        guard let ref = d.relay ?? d.opener?.relay else { return nil }
        let commands: [DeviceCommand] = command.pulse.map { [.pulse(device: d.id, ref, $0)] }
            ?? [.relay(device: d.id, ref, command.state ?? .off)]
        let execution = await execute(commands)
        return HouseResponse(code: execution.failure == nil ? .success : .failure,
                             dialog: execution.failure ?? execution.answer(commands.map(\.description).joined(separator: ", ")),
                             commands: commands)
    }

    /// Ends the temporary modes that have run out, room by room: each room goes back to what is
    /// below it on its timeline then (a longer temporary mode, or its base), and the devices of
    /// that mode in that room are switched. Nil when no temporary mode ended.
    public func revertExpiredMode() async -> HouseResponse? {
        let now = clock.now
        var targets: [(Device, DeviceState)] = []
        var covers: [(Device, Int)] = []
        var ended = false
        for room in timelines.keys.sorted() {
            guard var timeline = timelines[room] else { continue }
            let before = timeline.current
            _ = timeline.expire(at: now.date)
            guard timeline != timelines[room] else { continue }
            ended = true
            timelines[room] = timeline
            guard timeline.current != before, let back = timeline.current.flatMap(configuration.mode(id:)) else { continue }
            for (id, s) in back.devices.sorted(by: { $0.key < $1.key }) {
                if let d = configuration.device(id: id), d.room == room { targets.append((d, s)) }
            }
            for (id, position) in back.covers.sorted(by: { $0.key < $1.key }) {
                if let d = configuration.device(id: id), d.room == room { covers.append((d, position)) }
            }
        }
        guard ended else { return nil }
        let commands = plan(targets) + covers.flatMap { coverCommands($0.0, target: $0.1).commands }
        let execution = await execute(commands)
        return HouseResponse(code: execution.failure == nil ? .success : .failure,
                             dialog: execution.failure.map(HouseDialog.failed) ?? execution.answer(HouseDialog.modeIs(currentMode)),
                             commands: commands, mode: currentMode)
    }
}
