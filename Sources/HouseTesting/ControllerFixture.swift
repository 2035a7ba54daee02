import Foundation
import HouseDaemon
import HouseGPIO
import HouseMQTT
import Logging

/// A controller running in-process for end-to-end tests: the example house (or another
/// configuration), a simulated chip and a manual clock, the embedded broker on a free port (or an
/// existing broker), and a state directory of its own.
public struct ControllerFixture: Sendable {
    public let controller: HouseController<ManualClock>
    public let chip: SimulatedChip
    public let clock: ManualClock
    public let stateDirectory: String

    /// The broker the controller uses.
    public var port: Int { controller.brokerPort }

    /// The physical level of a device's relay line (nil when it is not a relay of this node).
    public func physicalLevel(of device: DeviceID) -> Bool? {
        guard let line = controller.relayLayout?.channels.first(where: { $0.device == device })?.line else { return nil }
        return chip.physicalLevel(line: line)
    }

    /// Whether a device's relay is energised (its line's level read through the board's
    /// active-low setting); nil when it is not a relay of this node.
    public func relayIsOn(_ device: DeviceID) -> Bool? {
        guard let channel = controller.relayLayout?.channels.first(where: { $0.device == device }),
              let level = chip.physicalLevel(line: channel.line) else { return nil }
        return level != channel.activeLow
    }

    /// The recorded edges (writes after the power-on request) of a device's relay line.
    public func edges(of device: DeviceID) -> [SimulatedChip.Edge] {
        guard let line = controller.relayLayout?.channels.first(where: { $0.device == device })?.line else { return [] }
        return chip.edges.filter { $0.line == line && $0.kind == .set }
    }

    /// A client of the controller's `intent/cli/request` topic.
    public func client(timeout: Duration = .seconds(10)) -> DaemonClient {
        DaemonClient(host: "127.0.0.1", port: port, baseTopic: controller.layout.base, timeout: timeout)
    }

    /// A connected MQTT client on the controller's broker; disconnect it when done.
    public func mqttClient() async throws -> MQTTClient {
        let client = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: port))
        try await client.connect()
        return client
    }
}

/// The phrase templates shipped in config/phrases.yaml.
public func defaultPhrases() throws -> PhraseSet {
    try PhraseSet.load(contentsOf: URL(fileURLWithPath: HouseFixtures.repositoryRoot + "/config/phrases.yaml"))
}

/// Builds a controller, runs it until `body` returns, then shuts it down gracefully and waits for
/// it to stop.
///
/// - Parameters:
///   - start: the manual clock's start (a fixed date: no test depends on the real date).
///   - stateDirectory: reuse a state directory (a restart); a fresh temporary one by default.
///   - brokerPort: connect to this broker on 127.0.0.1 instead of starting the embedded one.
///   - chip: reuse a simulated chip (a restart on the same hardware).
///   - logger: where the controller logs (a test may capture the lines).
@discardableResult
public func withController<T: Sendable>(
    configuration: HouseConfiguration? = nil,
    node: String = "pi-main",
    start: Date = Date(timeIntervalSince1970: 1_795_521_600),  // 2026-11-24 12:00 UTC, a Tuesday
    routines: Bool = false,
    stateDirectory: String? = nil,
    brokerPort: Int? = nil,
    chip: SimulatedChip? = nil,
    clock: ManualClock? = nil,
    bootID: String = "test-boot-\(UUID().uuidString)",
    logger: Logger = Logger(label: "housectl"),
    _ body: @Sendable (ControllerFixture) async throws -> T
) async throws -> T {
    let config = try configuration ?? HouseFixtures.exampleConfiguration()
    let clock = clock ?? ManualClock(start: start)
    let chip = chip ?? SimulatedChip(clock: clock)
    let directory = stateDirectory ?? NSTemporaryDirectory() + "housectl-test-\(UUID().uuidString)"
    // A directory made here is removed afterwards; a caller's own directory is the caller's.
    defer { if stateDirectory == nil { try? FileManager.default.removeItem(atPath: directory) } }
    let settings = ControllerSettings(
        configuration: config, clock: clock, node: node, stateDirectory: directory, chip: chip,
        brokerOverride: brokerPort.map { (host: "127.0.0.1", port: $0) }, embeddedPort: 0,
        clientID: "housectl-\(node)", reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500)),
        phrases: try defaultPhrases(), routines: routines, bootID: bootID, logger: logger)
    let fixture = ControllerFixture(controller: try await HouseController.build(settings), chip: chip, clock: clock,
                                    stateDirectory: directory)
    return try await runController(fixture.controller) { controller in
        try await withTimeout(.seconds(20), "the controller to be ready") { await controller.waitUntilReady() }
        return try await body(fixture)
    }
}

/// Runs `controller` until `body` returns (without waiting for it to be ready: for connections
/// meant to fail), then shuts it down gracefully and waits for it to stop.
public func runController<T: Sendable>(
    _ controller: HouseController<ManualClock>, _ body: @Sendable (HouseController<ManualClock>) async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            try await controller.run(signals: [])
            return nil
        }
        do {
            let result = try await body(controller)
            await controller.shutdown()
            try await group.waitForAll()
            return result
        } catch {
            await controller.shutdown()
            try? await group.waitForAll()
            throw error
        }
    }
}

extension ControllerFixture {
    /// Returns once `condition` holds, looking again after every command the controller carried
    /// out and every change of its coordination; fails with `TimeoutError` after `timeout`.
    public func waitUntil(_ what: String, timeout: Duration = .seconds(10),
                          _ condition: @escaping @Sendable () -> Bool) async throws {
        let commands = controller.changes
        let coordination = controller.coordination.changes
        try await withTimeout(timeout, what) {
            await commands.watch { afterCommand in
                await coordination.watch { afterChange in
                    while !condition() && !Task.isCancelled {
                        await withTaskGroup(of: Void.self) { group in
                            group.addTask { await afterCommand.wait() }
                            group.addTask { await afterChange.wait() }
                            await group.next()
                            group.cancelAll()
                        }
                    }
                }
            }
        }
    }

    /// Returns once this controller knows `node` as the house's coordinator (and, when `node` is
    /// this controller's own, once it coordinates).
    public func waitForCoordinator(_ node: NodeID, timeout: Duration = .seconds(10)) async throws {
        let coordination = controller.coordination
        try await waitUntil("\(node) coordinating, as \(coordination.node) sees it", timeout: timeout) {
            coordination.status.coordinator == node && (node != coordination.node || coordination.isActing)
        }
    }
}
