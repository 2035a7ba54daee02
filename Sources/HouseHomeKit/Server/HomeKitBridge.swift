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
    let core: BridgeCore
    let logger: Logger
    private let nextConnection = Atomic<Int>(0)

    /// Loads (or makes) the identity, the pairings and the accessory numbers in `stateDirectory`.
    public init(configuration: HouseConfiguration, stateDirectory: String, setupCode: SetupCode, house: any HomeKitHouse,
                firmware: String = "1.0.0", logger: Logger = Logger(label: "housectl.homekit")) throws(HomeKitError) {
        let identity = try AccessoryIdentity.loadOrCreate(in: stateDirectory)
        let store = try PairingStore(directory: stateDirectory)
        let numbers = try AccessoryNumbers.load(in: stateDirectory, for: AccessoryDatabase.bridgedItems(of: configuration))
        pairing = PairingHandler(identity: identity, setupCode: setupCode, store: store)
        core = BridgeCore(database: .bridge(for: configuration, numbers: numbers, firmware: firmware), house: house, logger: logger)
        self.logger = logger
    }

    /// The accessories as `GET /accessories` shows them now.
    public var database: AccessoryDatabase { core.database }

    /// Listens on `host:port` (port 0: a free one, told to `listening`) and serves until the task is cancelled.
    public func run(host: String, port: Int, listening: @Sendable (Int) -> Void = { _ in }) async throws {
        await core.start()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        listening(server.channel.localAddress?.port ?? port)
        logger.info("homekit: bridge \(pairing.identity.pairingID) listening on \(host):\(server.channel.localAddress?.port ?? port)")
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { [core, house = core.house] in
                for await (item, state) in house.changes() { await core.apply(item, state) }
            }
            try await withTaskCancellationHandler {
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        let id = nextConnection.add(1, ordering: .relaxed).newValue
                        group.addTask { await self.serve(connection, id: id) }
                    }
                }
            } onCancel: {
                server.channel.close(promise: nil)
            }
            group.cancelAll()
        }
    }
}
