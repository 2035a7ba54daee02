import Foundation
import HouseCore
import HouseGPIO

/// Relay fixtures: a house with one node and an 8-channel active-low board, and helpers to drive a
/// `RelayBank` on a `ManualClock` deterministically.
public enum GPIOFixtures {
    /// A fixed start instant (2027-01-15 08:00 UTC), so no test depends on the real date.
    public static func clock() -> ManualClock { ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000)) }

    /// The common 8-channel active-low board on BCM lines 5, 6, 13, 16, 19, 20, 21, 26.
    public static let eightChannelBoard = BoardProfile(
        id: "relay-8ch", name: "8-channel active-low relay board", chip: "gpiochip0", activeLow: true,
        channels: [1: 5, 2: 6, 3: 13, 4: 16, 5: 19, 6: 20, 7: 21, 8: 26])

    /// A house on node `pi-main` using every relay policy:
    /// - `bedroom-light` (ch 1): power_on restore, shutdown leave
    /// - `heater` (ch 2): max_on 30m, min_interval 1m, power_on restore
    /// - `garage-door` (ch 3): pulse 1s
    /// - `shutter-up` / `shutter-down` (ch 4, 5): interlock `shutter`, min_interval 2s, restore
    /// - `pump` (ch 6): power_on on, min_interval 10s, shutdown off
    /// - `hall-light` on node `pi-garage` (not ours) and a remote MQTT plug.
    public static func configuration() -> HouseConfiguration {
        HouseConfiguration(
            house: HouseInfo(name: "Test house", timeZone: HouseZone(identifier: "UTC")!, latitude: 51.5, longitude: -0.12),
            nodes: [Node(id: "pi-main", board: "relay-8ch"), Node(id: "pi-garage", board: "relay-8ch")],
            boards: ["relay-8ch": eightChannelBoard],
            rooms: [Room(id: "bedroom", name: "Bedroom"), Room(id: "garage", name: "Garage"), Room(id: "hall", name: "Hall")],
            devices: [
                Device(id: "bedroom-light", room: "bedroom", kind: .light, endpoint: .relay(RelayRef(node: "pi-main", channel: 1)),
                       powerOn: .restore, shutdown: .leave),
                Device(id: "heater", room: "bedroom", kind: .heater, endpoint: .relay(RelayRef(node: "pi-main", channel: 2)),
                       powerOn: .restore, maxOn: .seconds(1800), minInterval: .seconds(60)),
                Device(id: "garage-door", room: "garage", kind: .door, endpoint: .relay(RelayRef(node: "pi-main", channel: 3)),
                       confirm: true, pulse: .seconds(1)),
                Device(id: "shutter-up", room: "bedroom", kind: .switch, endpoint: .relay(RelayRef(node: "pi-main", channel: 4)),
                       powerOn: .restore, shutdown: .leave, minInterval: .seconds(2), interlock: "shutter"),
                Device(id: "shutter-down", room: "bedroom", kind: .switch, endpoint: .relay(RelayRef(node: "pi-main", channel: 5)),
                       powerOn: .restore, shutdown: .leave, minInterval: .seconds(2), interlock: "shutter"),
                Device(id: "pump", room: "garage", kind: .pump, endpoint: .relay(RelayRef(node: "pi-main", channel: 6)),
                       powerOn: .on, shutdown: .off, minInterval: .seconds(10)),
                Device(id: "hall-light", room: "hall", kind: .light, endpoint: .relay(RelayRef(node: "pi-garage", channel: 1))),
                Device(id: "desk-plug", room: "bedroom", kind: .plug, endpoint: .mqtt(MQTTDeviceEndpoint(commandTopic: "plug/desk/set"))),
            ])
    }
}

extension ManualClock {
    /// Advances the clock by `duration`, stopping at every timer of `bank` on the way and letting
    /// the bank act on it, so timers fire at exactly their deadline; what the relays did is
    /// appended to `events`.
    public func advance(by duration: Duration, firing bank: inout RelayBank, events: inout [RelayEvent]) {
        let target = now.advanced(by: duration)
        while let next = bank.nextDeadline, next <= target {
            advance(to: next)
            bank.fireDueTimers(at: now, events: &events)
        }
        advance(to: target)
        bank.fireDueTimers(at: now, events: &events)
    }
}

extension SimulatedChip {
    /// Presses the button on input `line` (the example house's hall button is 17) for `held` on
    /// `clock`, then lets the double-press window pass.
    public func press(line: Int, held: Duration, clock: ManualClock) {
        setInput(line: line, active: true)
        clock.advance(by: held)
        setInput(line: line, active: false)
        clock.advance(by: .milliseconds(450))
        nudge()
    }
}
