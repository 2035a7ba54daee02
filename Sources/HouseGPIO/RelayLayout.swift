import HouseCore

/// The relays of one node, resolved from the configuration: which device sits on which channel and
/// GPIO line, with its active-low flag and safety policies, and the interlock groups.
///
/// Building a layout validates everything the relay bank relies on, so a bad configuration is
/// refused with all its problems listed instead of surprising anyone at run time.
public struct RelayLayout: Sendable, Equatable {
    /// One relay channel with the device wired to it.
    public struct Channel: Sendable, Equatable {
        /// Device id; relays are addressed by it.
        public var device: DeviceID
        /// Room id of the device (for people reading listings).
        public var room: RoomID
        /// 1-based channel number on the board.
        public var channel: Int
        /// GPIO line offset on the chip.
        public var line: Int
        public var activeLow: Bool
        public var powerOn: PowerOnPolicy
        /// The shutdown policy as applied: relays with a pulse or a max-on are always switched off.
        public var shutdown: ShutdownPolicy
        public var pulse: Duration?
        public var maxOn: Duration?
        public var minInterval: Duration?
        public var interlock: String?

        public init(
            device: DeviceID, room: RoomID = "", channel: Int, line: Int, activeLow: Bool,
            powerOn: PowerOnPolicy = .off, shutdown: ShutdownPolicy = .off, pulse: Duration? = nil,
            maxOn: Duration? = nil, minInterval: Duration? = nil, interlock: String? = nil
        ) {
            self.device = device
            self.room = room
            self.channel = channel
            self.line = line
            self.activeLow = activeLow
            self.powerOn = powerOn
            self.shutdown = (pulse != nil || maxOn != nil) ? .off : shutdown
            self.pulse = pulse
            self.maxOn = maxOn
            self.minInterval = minInterval
            self.interlock = interlock
        }
    }

    /// Relays of which at most one may be on, with the dead time between one going off and another going on.
    public struct InterlockGroup: Sendable, Equatable {
        public var id: String
        /// Device ids, in configuration order.
        public var members: [DeviceID]
        public var deadTime: Duration

        public init(id: String, members: [DeviceID], deadTime: Duration) {
            self.id = id
            self.members = members
            self.deadTime = deadTime
        }
    }

    /// The default dead time of an interlock group (motor reversal relays want at least this).
    public static let defaultDeadTime: Duration = .milliseconds(500)

    public var node: NodeID
    /// Board profile id.
    public var board: String
    /// The chip to open (name, path, label or number).
    public var chip: String
    /// Configured relays, by channel.
    public var channels: [Channel]
    /// Board channels with no device (channel to line), held off like the others at boot.
    public var unusedChannels: [Int: Int]
    public var groups: [InterlockGroup]

    /// A layout from parts, validated.
    public init(
        node: NodeID, board: String = "custom", chip: String, channels: [Channel], unusedChannels: [Int: Int] = [:],
        deadTimes: [String: Duration] = [:], defaultDeadTime: Duration = RelayLayout.defaultDeadTime
    ) throws(GPIOError) {
        self.node = node
        self.board = board
        self.chip = chip
        self.channels = channels.sorted { $0.channel < $1.channel }
        self.unusedChannels = unusedChannels
        var order: [String] = []
        var members: [String: [DeviceID]] = [:]
        for c in self.channels {
            guard let g = c.interlock else { continue }
            if members[g] == nil { order.append(g) }
            members[g, default: []].append(c.device)
        }
        self.groups = order.map { InterlockGroup(id: $0, members: members[$0]!, deadTime: deadTimes[$0] ?? defaultDeadTime) }
        let problems = validate()
        if !problems.isEmpty { throw .invalidLayout(node: node, problems: problems) }
    }

    /// The relays of `node` in `configuration`: its board profile and the devices whose relay is on it.
    ///
    /// `deadTimes` sets the dead time per interlock group, over what the devices say
    /// (`interlock_dead_time`); the others get `defaultDeadTime`.
    public init(
        configuration: HouseConfiguration, node nodeID: NodeID,
        deadTimes: [String: Duration] = [:], defaultDeadTime: Duration = RelayLayout.defaultDeadTime
    ) throws(GPIOError) {
        guard let node = configuration.node(id: nodeID) else {
            let known = configuration.nodes.map(\.id.rawValue)
            throw .invalidLayout(node: nodeID, problems: [
                "no node \"\(nodeID)\" in the configuration (nodes: \(known.isEmpty ? "none" : known.joined(separator: ", ")))"
            ])
        }
        guard let board = configuration.boards[node.board] else {
            throw .invalidLayout(node: nodeID, problems: [
                "node \"\(nodeID)\" uses board \"\(node.board)\", which has no profile (known: \(configuration.boards.keys.sorted().joined(separator: ", ")))"
            ])
        }
        var problems: [String] = []
        var channels: [Channel] = []
        var groupDeadTimes: [String: Duration] = [:]
        for device in configuration.devices where device.node == nodeID {
            if let group = device.interlock, let deadTime = device.interlockDeadTime { groupDeadTimes[group] = deadTime }
            // A cover's windings are one interlock group named after it; each runs at most its
            // travel and the end margin, and both start and stop off.
            let motor = device.motor
            if let motor, let deadTime = motor.deadTime { groupDeadTimes[device.id.rawValue] = deadTime }
            for (id, relay) in device.relayChannels {
                guard let line = board.channels[relay.channel] else {
                    let known = board.channels.keys.sorted().map(String.init).joined(separator: ", ")
                    problems.append("device \"\(device.id)\" uses channel \(relay.channel), but board \"\(board.id)\" has channels \(known)")
                    continue
                }
                if let opener = device.opener {
                    channels.append(Channel(
                        device: id, room: device.room, channel: relay.channel, line: line, activeLow: board.activeLow,
                        powerOn: .off, shutdown: .off, pulse: opener.pulse))
                } else if let motor {
                    let direction: CoverDirection = relay.channel == motor.upChannel ? .up : .down
                    channels.append(Channel(
                        device: id, room: device.room, channel: relay.channel, line: line, activeLow: board.activeLow,
                        powerOn: .off, shutdown: .off, maxOn: motor.maximumRun(direction), interlock: device.id.rawValue))
                } else {
                    channels.append(Channel(
                        device: id, room: device.room, channel: relay.channel, line: line, activeLow: board.activeLow,
                        powerOn: device.powerOn, shutdown: device.shutdown, pulse: device.pulse, maxOn: device.maxOn,
                        minInterval: device.minInterval, interlock: device.interlock))
                }
            }
        }
        if !problems.isEmpty { throw .invalidLayout(node: nodeID, problems: problems) }
        let used = Set(channels.map(\.channel))
        try self.init(
            node: nodeID, board: board.id, chip: node.chip ?? board.chip, channels: channels,
            unusedChannels: board.channels.filter { !used.contains($0.key) },
            deadTimes: groupDeadTimes.merging(deadTimes) { _, given in given }, defaultDeadTime: defaultDeadTime)
    }

    /// The channel of a device.
    public func channel(device: DeviceID) -> Channel? { channels.first { $0.device == device } }

    /// The interlock group a device belongs to.
    public func group(of device: DeviceID) -> InterlockGroup? {
        guard let id = channel(device: device)?.interlock else { return nil }
        return groups.first { $0.id == id }
    }

    private func validate() -> [String] {
        var problems: [String] = []
        var byChannel: [Int: DeviceID] = [:]
        var byLine: [Int: DeviceID] = [:]
        var devices: Set<DeviceID> = []
        for c in channels {
            let name = "device \"\(c.device)\""
            if !devices.insert(c.device).inserted { problems.append("\(name) appears twice") }
            if let other = byChannel[c.channel] {
                problems.append("\(name) and device \"\(other)\" are both on channel \(c.channel)")
            }
            byChannel[c.channel] = c.device
            if let other = byLine[c.line] {
                problems.append("\(name) and device \"\(other)\" are both on GPIO line \(c.line)")
            }
            byLine[c.line] = c.device
            if c.line < 0 { problems.append("\(name) has a negative GPIO line \(c.line)") }
            for (label, value) in [("pulse", c.pulse), ("max_on", c.maxOn), ("min_interval", c.minInterval)] {
                if let value, value <= .zero { problems.append("\(name): \(label) must be longer than zero") }
            }
            if let pulse = c.pulse, let maxOn = c.maxOn, pulse > maxOn {
                problems.append("\(name): pulse \(fmt(pulse)) is longer than max_on \(fmt(maxOn))")
            }
            if let mi = c.minInterval, let pulse = c.pulse, pulse < mi {
                problems.append("\(name): pulse \(fmt(pulse)) is shorter than min_interval \(fmt(mi)), so the pulse could not end on time")
            }
            if let mi = c.minInterval, let maxOn = c.maxOn, maxOn < mi {
                problems.append("\(name): max_on \(fmt(maxOn)) is shorter than min_interval \(fmt(mi)), so the watchdog could not switch it off on time")
            }
        }
        for g in groups {
            if g.deadTime < .zero { problems.append("interlock \"\(g.id)\": dead time must not be negative") }
            let alwaysOn = g.members.filter { channel(device: $0)?.powerOn == .on }
            if alwaysOn.count > 1 {
                problems.append("interlock \"\(g.id)\": \(alwaysOn.map { "\"\($0)\"" }.joined(separator: " and ")) are all power_on: on, but at most one member may be on")
            }
        }
        return problems
    }
}

func fmt(_ d: Duration) -> String { DurationParser.format(d) }
