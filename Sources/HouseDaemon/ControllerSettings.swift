import Foundation
import HouseCore
import HouseGPIO
import HouseMQTT
import Logging

/// Everything `HouseController.build` needs: the loaded configuration and how to run it.
public struct ControllerSettings<C: WallClock>: Sendable {
    public var configuration: HouseConfiguration
    /// This node's id; nil picks the only node, or the one named like the host.
    public var node: String?
    public var hostName: String
    public var stateDirectory: String
    /// The GPIO chip to use; nil opens one from `gpio`.
    public var chip: (any GPIOChip)?
    /// `sim`, a chip name, path, label or number; nil: the board's chip, simulated when absent.
    public var gpio: String?
    public var clock: C
    /// Connect to this broker instead of the configured one.
    public var brokerOverride: (host: String, port: Int)?
    /// Start the embedded broker on this port instead of the configured one (0: any free port).
    public var embeddedPort: Int?
    /// How many messages the embedded broker keeps for inspection (tests).
    public var recordBrokerMessages: Int
    /// The MQTT client id; `housectl-<node>` by default.
    public var clientID: String?
    public var reconnect: MQTTReconnectPolicy
    /// The phrase templates for text requests; nil: text requests are refused.
    public var phrases: PhraseSet?
    /// Whether the primary node runs the routines (tests of other parts turn them off); temporary
    /// modes end on time either way.
    public var routines: Bool
    /// How long the history is kept (90 days by default).
    public var historyRetention: Duration
    /// This boot's id (`/proc/sys/kernel/random/boot_id` when nil): the same as the last run's
    /// means a restart of the controller, not of the machine, so every relay keeps its state.
    public var bootID: String?
    /// How long a graceful shutdown may take, from the first signal to the exit (5 s by default).
    public var shutdownBudget: Duration
    public var logger: Logger

    public init(
        configuration: HouseConfiguration, clock: C, node: String? = nil,
        hostName: String = ProcessInfo.processInfo.hostName,
        stateDirectory: String = DaemonOptions.defaultStateDirectory(), chip: (any GPIOChip)? = nil, gpio: String? = nil,
        brokerOverride: (host: String, port: Int)? = nil, embeddedPort: Int? = nil, recordBrokerMessages: Int = 0,
        clientID: String? = nil, reconnect: MQTTReconnectPolicy = MQTTReconnectPolicy(), phrases: PhraseSet? = nil,
        routines: Bool = true, historyRetention: Duration = .seconds(90 * 86_400), bootID: String? = nil,
        shutdownBudget: Duration = ShutdownDeadline.defaultBudget, logger: Logger = Logger(label: "housectl")
    ) {
        self.bootID = bootID
        self.shutdownBudget = shutdownBudget
        self.configuration = configuration
        self.clock = clock
        self.node = node
        self.hostName = hostName
        self.stateDirectory = stateDirectory
        self.chip = chip
        self.gpio = gpio
        self.brokerOverride = brokerOverride
        self.embeddedPort = embeddedPort
        self.recordBrokerMessages = recordBrokerMessages
        self.clientID = clientID
        self.reconnect = reconnect
        self.phrases = phrases
        self.routines = routines
        self.historyRetention = historyRetention
        self.logger = logger
    }
}
