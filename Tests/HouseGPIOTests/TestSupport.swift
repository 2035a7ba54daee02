import HouseGPIO
import HouseTesting

/// A bank on the fixture house's `pi-main`, on a simulated chip and a manual clock. Every call
/// gives the bank the clock's time, and what the relays did is appended to `events`, in order.
struct Rig {
    let clock: ManualClock
    let chip: SimulatedChip
    let layout: RelayLayout
    var bank: RelayBank
    /// Every event of the bank so far (edges, watchdogs, cancelled switches, failures).
    var events: [RelayEvent] = []

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
        self.bank = try! RelayBank(layout: layout, chip: chip, at: clock.now, persisted: persisted, chatterPolicy: chatter)
    }

    func line(_ device: DeviceID) -> Int { layout.channel(device: device)!.line }

    /// Edges (writes) of one device's line.
    func edges(_ device: DeviceID) -> [SimulatedChip.Edge] { chip.edges.filter { $0.line == line(device) } }

    /// Advances the clock, firing the bank's timers at their deadlines on the way.
    mutating func advance(_ d: Duration) { clock.advance(by: d, firing: &bank, events: &events) }

    mutating func perform(_ command: RelayCommand, on device: DeviceID) -> RelayResult {
        bank.perform(command, on: device, at: clock.now, events: &events)
    }

    mutating func set(_ device: DeviceID, to state: DeviceState) -> RelayResult {
        bank.set(device, to: state, at: clock.now, events: &events)
    }

    @discardableResult
    mutating func shutdown() -> [RelayOutcome] {
        bank.shutdown(at: clock.now, events: &events)
    }

    func state(of device: DeviceID) -> DeviceState? { bank.state(of: device) }
}
