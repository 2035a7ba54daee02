import HouseCore
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// The HomeKit bridge: a HAP accessory server over TCP that shows the house's devices to Apple
/// Home. It pairs with the setup code, keeps its identity, pairings and accessory numbers in its
/// state directory, and goes through `HomeKitHouse` for everything about the house.
public final class HomeKitBridge: Sendable {
    public let pairing: PairingHandler
    /// The setup ID and the configuration number `c#` (one higher than at the last start when the
    /// accessories changed since).
    public let discovery: HAPDiscoveryState
    /// The name the bridge is announced and shown under (`<house> Bridge`).
    public let name: String
    let core: BridgeCore
    let logger: Logger
    /// The bounds on what a connection may hold (see `HomeKitLimits`).
    public let limits: HomeKitLimits
    /// The clock of the connections' idle timeout (a test's manual clock).
    let clock: any WallClock
    private let nextConnection = Atomic<Int>(0)
    /// Connections open now, and whether a refusal at the limit was logged since it was last below.
    private let open = Mutex<(count: Int, refusalLogged: Bool)>((0, false))

    /// Loads (or makes) the identity, the pairings, the accessory numbers and the discovery state
    /// in `stateDirectory`.
    public init(configuration: HouseConfiguration, stateDirectory: String, setupCode: SetupCode, house: any HomeKitHouse,
                limits: HomeKitLimits = HomeKitLimits(), clock: any WallClock = MonotonicWallClock(),
                firmware: String = "1.0.0", logger: Logger = Logger(label: "housectl.homekit")) throws(HomeKitError) {
        let identity = try AccessoryIdentity.loadOrCreate(in: stateDirectory)
        let store = try PairingStore(directory: stateDirectory)
        let numbers = try AccessoryNumbers.load(in: stateDirectory, for: AccessoryDatabase.bridgedItems(of: configuration))
        let database = AccessoryDatabase.bridge(for: configuration, numbers: numbers, firmware: firmware)
        pairing = PairingHandler(identity: identity, setupCode: setupCode, store: store)
        discovery = try HAPDiscoveryState.load(in: stateDirectory, accessories: database.fingerprint)
        name = AccessoryDatabase.bridgeName(of: configuration)
        core = BridgeCore(database: database, house: house, logger: logger)
        self.logger = logger
        self.limits = limits
        self.clock = clock
    }

    /// The accessories as `GET /accessories` shows them now.
    public var database: AccessoryDatabase { core.database }

    /// What the bridge announces by mDNS now (paired or not).
    public var advertisement: HAPAdvertisement {
        HAPAdvertisement(name: name, pairingID: pairing.identity.pairingID, configurationNumber: discovery.configurationNumber,
                         paired: pairing.store.isPaired, setupID: discovery.setupID)
    }

    /// The setup code, the setup URI and how many controllers are paired now.
    public var setup: HomeKitSetup {
        HomeKitSetup(code: pairing.setupCode, setupID: discovery.setupID, name: name, pairedControllers: pairing.store.pairings.count)
    }

    /// Why the bridge cannot be announced by mDNS on this machine now (avahi-daemon not running,
    /// no D-Bus system bus), or nil when avahi-daemon answers.
    public static func mdnsUnavailability() -> String? {
        HAPAnnouncer.unavailability()
    }

    /// Listens on `host:port` (port 0: a free one, told to `listening`) and serves until the task
    /// is cancelled; with `announce`, announced by mDNS (through avahi-daemon) while it listens,
    /// and announced again when a pairing is added or removed.
    public func run(host: String, port: Int, announce: Bool = false, listening: @Sendable (Int) -> Void = { _ in }) async throws {
        await core.start()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let bound = server.channel.localAddress?.port ?? port
        listening(bound)
        logger.info("homekit: bridge \(pairing.identity.pairingID) listening on \(host):\(bound)")
        let announcer = announce ? HAPAnnouncer.start(advertisement, port: bound, logger: logger) : nil
        defer { announcer?.stop() }
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { [core, house = core.house] in
                for await (item, state) in house.changes() { await core.apply(item, state) }
            }
            if let announcer {
                // sf follows the pairings: announced again at every change.
                group.addTask { [pairing] in
                    await pairing.store.changes.watch { signal in
                        while !Task.isCancelled {
                            announcer.update(self.advertisement)
                            await signal.wait()
                        }
                    }
                }
            }
            try await withTaskCancellationHandler {
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        guard admit() else {
                            try? await connection.executeThenClose { _, _ in }
                            continue
                        }
                        let id = nextConnection.add(1, ordering: .relaxed).newValue
                        group.addTask {
                            await self.serve(connection, id: id)
                            self.open.withLock { $0.count -= 1 }
                        }
                    }
                }
            } onCancel: {
                server.channel.close(promise: nil)
            }
            group.cancelAll()
        }
    }

    /// Counts a new connection in, or refuses it at `limits.maxConnections` (logged once until a
    /// connection closes: a flood does not flood the log).
    private func admit() -> Bool {
        let (admitted, log) = open.withLock { state -> (Bool, Bool) in
            guard state.count >= limits.maxConnections else {
                state.count += 1
                state.refusalLogged = false
                return (true, false)
            }
            defer { state.refusalLogged = true }
            return (false, !state.refusalLogged)
        }
        if log { logger.notice("homekit: refusing connections: \(limits.maxConnections) are open, the most the bridge keeps") }
        return admitted
    }
}
