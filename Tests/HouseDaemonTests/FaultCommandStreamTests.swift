import Foundation
import HouseBroker
import HouseCore
import HouseMQTT
import HouseTesting
import Synchronization
import Testing
@testable import HouseDaemon

/// What a command stream did, for the assertions and for `make soak`'s report.
struct StreamCounts: CustomStringConvertible, Sendable {
    var sent = 0
    /// Publishes that returned `.delivered` (PUBACK from the broker): the acknowledged commands.
    var acknowledged = 0
    /// Publishes that returned `.queued` (the sender was offline; flushed after reconnect).
    var queued = 0
    /// Distinct command ids the controller handled (history records with that request id).
    var applied = 0
    /// Sent command ids that never made it into the history.
    var lost = 0
    /// Command ids handled more than once, plus relay edges beyond one per applied command.
    var doubled = 0
    var edges = 0
    var seconds = 0.0

    var description: String {
        "sent \(sent), acknowledged \(acknowledged), queued \(queued), applied \(applied), lost \(lost), doubled \(doubled), edges \(edges), \(String(format: "%.1f", seconds)) s"
    }
}

/// The soak settings: `HOUSECTL_SOAK=1` turns the long versions on, `HOUSECTL_SOAK_COMMANDS`
/// sets the stream length (default 1000) and `HOUSECTL_SOAK_ROUNDS` how many faults it suffers.
enum Soak {
    static var enabled: Bool { ProcessInfo.processInfo.environment["HOUSECTL_SOAK"] == "1" }
    static func int(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? fallback
    }
    static var commands: Int { int("HOUSECTL_SOAK_COMMANDS", 1000) }
    static var rounds: Int { int("HOUSECTL_SOAK_ROUNDS", 5) }

    /// Prints a line `make soak` greps for.
    static func report(_ scenario: String, _ counts: StreamCounts) {
        print("SOAK \(scenario): \(counts)")
    }
}

/// A stream of QoS 1 commands with ids to a relay without a minimum interval, alternating ON and
/// OFF from OFF so that every applied command is exactly one relay edge. The broker suffers
/// `faults` kills in the stream, each one with a stretch of commands published while it is down
/// (the sender queues them). Returns the counts once every command is in the history or the
/// bounded wait ends.
func runCommandStream(
    _ f: ControllerFixture, port: Int, commands: Int, faults: Int,
    device: (room: RoomID, id: DeviceID) = ("kitchen", "kitchen-light"),
    drainBeforeKill: Bool = false,
    kill: @escaping @Sendable () async throws -> Void,
    restart: @escaping @Sendable () async throws -> Void
) async throws -> StreamCounts {
    let began = ContinuousClock.now
    var counts = StreamCounts()
    let sender = try MQTTClient(configuration: MQTTConfiguration(
        host: "127.0.0.1", port: port, clientID: "fault-sender-\(UUID().uuidString.prefix(8))", cleanSession: false,
        keepAlive: .seconds(5),
        reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200)),
        offlineQueueCapacity: commands + 10, offlineMessageTimeToLive: .seconds(120)))
    try await sender.connect()
    let edgesBefore = f.edges(of: device.id).count
    let topic = "house/\(device.room)/\(device.id)/set"
    let runID = UUID().uuidString.prefix(6)
    @Sendable func id(_ i: Int) -> String { "s\(runID)-\(i)" }
    /// Publishes command `n`; a PUBACK that never comes fails the test instead of hanging it.
    @Sendable func publish(_ n: Int) async throws -> MQTTDelivery {
        try await withTimeout(.seconds(15), "the PUBACK of command \(n)") {
            try await sender.publish(
                to: topic, payload: #"{"id":"\#(id(n))","state":"\#(n % 2 == 0 ? "ON" : "OFF")"}"#, qos: .atLeastOnce)
        }
    }
    // The fault points split the stream into equal stretches.
    let stretch = max(1, commands / (2 * faults + 1))
    var i = 0
    var fault = 0
    // Every handled command is announced on the events topic: the wait at the end is on those.
    let watcher = try MQTTClient(configuration: MQTTConfiguration(
        host: "127.0.0.1", port: port, clientID: "fault-watcher-\(runID)", cleanSession: false,
        reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200))))
    try await watcher.connect()
    let events = try await watcher.subscribe(to: "house/events", qos: .atLeastOnce)
    while i < commands {
        if fault < faults && i == stretch * (2 * fault + 1) {
            if drainBeforeKill {
                // Let the controller catch up first, so that the kill loses nothing the broker
                // acknowledged but had not yet delivered (mosquitto saves after it acknowledges).
                let upTo = Set((0..<i).map(id))
                let store = f.controller.store
                @Sendable func caughtUp() throws -> Bool {
                    Set(try store.history(limit: 1_000_000).compactMap(\.requestID)).isSuperset(of: upTo)
                }
                if try !caughtUp() {
                    try await withTimeout(.seconds(20), "the controller to catch up before the kill") {
                        for try await _ in events where try caughtUp() { return }
                    }
                }
            }
            try await kill()
            // Wait (bounded) until the sender has noticed, so the next stretch really is offline.
            try await withTimeout(.seconds(20), "the sender to notice the broker is gone") {
                for await s in sender.connectionStates() {
                    if case .connected = s { continue }
                    return
                }
            }
            for j in i..<min(commands, i + stretch) {
                let delivery = try await publish(j)
                counts.sent += 1
                if delivery == .delivered { counts.acknowledged += 1 } else { counts.queued += 1 }
            }
            i = min(commands, i + stretch)
            try await restart()
            // Back online before the next stretch, so that it is acknowledged (PUBACK) again.
            try await withTimeout(.seconds(20), "the sender to reconnect") {
                for await s in sender.connectionStates() {
                    if case .connected = s { return }
                }
            }
            fault += 1
            continue
        }
        let delivery = try await publish(i)
        counts.sent += 1
        if delivery == .delivered { counts.acknowledged += 1 } else { counts.queued += 1 }
        i += 1
    }
    let wanted = Set((0..<commands).map(id))
    let store = f.controller.store
    // Wait on the history (bounded) until every command id is in it.
    @Sendable func allHandled() throws -> Bool {
        Set(try store.history(limit: 1_000_000).compactMap(\.requestID)).intersection(wanted).count == wanted.count
    }
    if try !allHandled() {
        _ = try? await withTimeout(.seconds(Int64(max(20, commands / 50))), "every command in the history") {
            var seen = 0
            for try await _ in events {
                seen += 1
                if seen >= commands / 2, try allHandled() { return }
            }
        }
    }
    let handled = try store.history(limit: 1_000_000).compactMap(\.requestID).filter { wanted.contains($0) }
    let unique = Set(handled)
    counts.applied = unique.count
    counts.lost = wanted.count - unique.count
    counts.edges = f.edges(of: device.id).count - edgesBefore
    counts.doubled = (handled.count - unique.count) + max(0, counts.edges - unique.count)
    counts.seconds = Double((ContinuousClock.now - began).components.seconds)
        + Double((ContinuousClock.now - began).components.attoseconds) / 1e18
    await sender.disconnect()
    await watcher.disconnect()
    return counts
}

/// The broker killed and restarted while QoS 1 commands stream in: every command is applied
/// exactly once (one relay edge each, alternating ON/OFF), none lost, none doubled.
@Suite(.serialized) struct FaultCommandStreamTests {
    @Test func theHouseBrokerRestartedDuringAStreamOfCommandsLosesNone() async throws {
        let commands = Soak.enabled ? Soak.commands : 200
        let faults = Soak.enabled ? Soak.rounds : 1
        try await withTestBroker(configure: { $0.maximumQueuedMessages = commands + 100 }) { broker in
            try await withController(brokerPort: broker.port) { f in
                let counts = try await runCommandStream(
                    f, port: broker.port, commands: commands, faults: faults,
                    kill: { await broker.shutdown() },
                    restart: { try await broker.restart(keepingRetained: true, keepingSessions: true) })
                if Soak.enabled { Soak.report("house-broker restart", counts) }
                if counts.lost > 0 {
                    // What the failure report needs; bounded, as the controller may be stuck.
                    print("daemon client: \(f.controller.client.connectionState) \(f.controller.client.statistics)")
                    for session in await broker.snapshot().sessions.values {
                        print("session \(session.clientID): connected \(session.isConnected), inflight \(session.inflightCount), queued \(session.queuedCount), dropped \(session.droppedCount), subscriptions \(session.subscriptions.count)")
                    }
                    _ = try? await withTimeout(.seconds(10), "the controller to answer") {
                        let answer = try? await f.client(timeout: .seconds(3)).send(.intent(.query(QueryHouseStatusIntent(queryType: .mode))))
                        print("daemon answers a query: \(answer?.status.rawValue ?? "no")")
                        let direct = await f.controller.submit(.control(HouseControlIntent(room: "hall", action: .on, device: "hall-light")), source: .cli)
                        print("direct process: \(direct.status)")
                    }
                }
                #expect(counts.sent == commands)
                #expect(counts.lost == 0, "\(counts)")
                #expect(counts.doubled == 0, "\(counts)")
                #expect(counts.edges == commands, "\(counts)")
                #expect(counts.acknowledged + counts.queued == commands)
                #expect(try f.controller.store.integrityCheck() == "ok")
            }
        }
    }

    /// Every connection dropped (as a network failure would) while QoS 1 commands stream in:
    /// both clients reconnect at once, and still every command is applied exactly once.
    @Test func connectionsDroppedDuringAStreamOfCommandsLoseNone() async throws {
        let commands = Soak.enabled ? Soak.commands : 200
        let faults = Soak.enabled ? Soak.rounds : 1
        try await withTestBroker(configure: { $0.maximumQueuedMessages = commands + 100 }) { broker in
            try await withController(brokerPort: broker.port) { f in
                // Drops make both clients reconnect at once; the sender may even be back first.
                let counts = try await runCommandStream(
                    f, port: broker.port, commands: commands, faults: faults, device: ("hall", "hall-light"),
                    kill: { await broker.dropAllConnections() }, restart: {})
                if Soak.enabled { Soak.report("house-broker connection drops", counts) }
                #expect(counts.lost == 0, "\(counts)")
                #expect(counts.doubled == 0, "\(counts)")
                #expect(counts.edges == commands, "\(counts)")
            }
        }
    }
}
