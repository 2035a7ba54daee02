import HouseCore
import HouseDaemon
import ServiceLifecycle

/// The bridge as a service of the controller's group (`homekit:` in house.yaml): started after
/// the command bus, stopped at the shutdown. A listener that cannot start (the port is taken) is
/// logged, and the controller runs on without the bridge: the relays matter more.
public struct HomeKitService<C: WallClock>: Service {
    public let bridge: HomeKitBridge
    let settings: HomeKitSettings
    let onListening: @Sendable (Int) -> Void

    /// The bridge of `controller`'s house, with its files in `<stateDirectory>/homekit`.
    public init(controller: HouseController<C>, settings: HomeKitSettings, stateDirectory: String,
                onListening: @escaping @Sendable (Int) -> Void = { _ in }) throws(HomeKitError) {
        let directory = stateDirectory + "/homekit"
        let code = try SetupCode.load(pinFile: settings.pinFile, keptIn: directory)
        // The code itself is never logged: where to read it is.
        controller.logger.info("homekit: the setup code is in \(settings.pinFile ?? SetupCode.path(in: directory)) (housectl homekit prints it with its QR code)")
        bridge = try HomeKitBridge(configuration: controller.configuration, stateDirectory: directory, setupCode: code,
                                   house: ControllerHouse(controller: controller), logger: controller.logger)
        self.settings = settings
        self.onListening = onListening
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                try await bridge.run(host: settings.bind, port: settings.port, announce: true, listening: onListening)
            }
        } catch is CancellationError {
        } catch {
            bridge.logger.error("homekit: the bridge could not run: \(error)")
        }
    }
}
