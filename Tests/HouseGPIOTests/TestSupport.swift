import HouseGPIO
import HouseTesting

/// A bank on the fixture house's `pi-main`, on a simulated chip and a manual clock.
struct Rig {
    let clock: ManualClock
    let chip: SimulatedChip
    let layout: RelayLayout
    let bank: RelayBank<ManualClock>

    init(persisted: [DeviceID: DeviceState] = [:], chatter: ChatterPolicy = .coalesce, deadTime: Duration = .milliseconds(500)) throws {
        let clock = GPIOFixtures.clock()
        let chip = SimulatedChip(clock: clock)
        let layout = try RelayLayout(configuration: GPIOFixtures.configuration(), node: "pi-main", defaultDeadTime: deadTime)
        self.init(clock: clock, chip: chip, layout: layout, persisted: persisted, chatter: chatter)
    }

    init(clock: ManualClock, chip: SimulatedChip, layout: RelayLayout, persisted: [DeviceID: DeviceState] = [:], chatter: ChatterPolicy = .coalesce) {
        self.clock = clock
        self.chip = chip
        self.layout = layout
        self.bank = try! RelayBank(layout: layout, chip: chip, clock: clock, persisted: persisted, chatterPolicy: chatter)
    }

    func line(_ device: DeviceID) -> Int { layout.channel(device: device)!.line }

    /// Edges (writes) of one device's line.
    func edges(_ device: DeviceID) -> [SimulatedChip.Edge] { chip.edges.filter { $0.line == line(device) } }

    func advance(_ d: Duration) async { await clock.advance(by: d, firing: bank) }
}

extension RelayBank {
    /// The bank's events from now on, through its observer (which this replaces).
    func eventStream() async -> AsyncStream<RelayEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: RelayEvent.self)
        observe { event, _ in continuation.yield(event) }
        return stream
    }
}

/// Collects events until `predicate` matches one, or gives up after `timeout` of real time.
func firstEvent(
    in events: AsyncStream<RelayEvent>, timeout: Duration = .seconds(20), where predicate: @Sendable @escaping (RelayEvent) -> Bool
) async -> RelayEvent? {
    await withTaskGroup(of: RelayEvent?.self) { group in
        group.addTask {
            for await e in events where predicate(e) { return e }
            return nil
        }
        group.addTask {
            try? await ContinuousClock().sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
