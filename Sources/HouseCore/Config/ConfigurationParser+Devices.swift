import MQTTTopics
import Yams

/// Devices, their relay channels and interlock groups.
extension ConfigurationParser {
    static let deviceKeys = ["id", "room", "kind", "names", "watts", "relay", "mqtt", "confirm", "power_on",
                             "shutdown", "pulse", "max_on", "min_interval", "interlock", "interlock_dead_time",
                             "unit", "device_class", "motor", "opener", "direction", "stale_after"]
    /// Keys of devices that switch, which a sensor (read from MQTT) cannot have.
    static let switchingKeys = ["watts", "relay", "confirm", "power_on", "shutdown", "pulse", "max_on", "min_interval",
                                "interlock", "interlock_dead_time", "motor"]
    /// Keys of a relay's own safety rules, which a cover takes from its motor instead.
    static let relayOnlyKeys = ["relay", "mqtt", "power_on", "shutdown", "pulse", "max_on", "min_interval", "interlock",
                                "interlock_dead_time", "unit", "stale_after"]

    func parseDevice(_ node: YNode) -> Device? {
        guard let m = ctx.map(node, what: "device", allowed: Self.deviceKeys) else { return nil }
        let id = m.string("id", expected: "the device's id, e.g. bedroom-lamp", required: true)
        let what = "device '\(id ?? "?")'"
        let room = m.require("room", expected: "the id of the room it is in").flatMap { reference($0, to: roomIDs, what: "room") }
        let kinds = DeviceKind.allCases.map(\.rawValue)
        let kind = m.require("kind", expected: "one of \(kinds.joined(separator: ", "))")
            .flatMap { ctx.oneOf($0, kinds, what: "a device kind") }.flatMap(DeviceKind.init(rawValue:))
        var names = m["names"].flatMap { ctx.strings($0, expected: "names people use for it") } ?? []
        if names.isEmpty, let kind { names = [kind.rawValue] }
        let watts = m["watts"].flatMap { ctx.double($0, expected: "power drawn when on, in watts (0 or more)", range: 0...1_000_000) }

        if m.has("direction") {
            ctx.error("direction in \(what) is gone: a shutter, blind or curtain is now one device, kind: cover with motor: {node: NODE, up: CHANNEL, down: CHANNEL, open_time: 20s} (see docs/CONFIG.md)", at: m.keyNode("direction"))
        }
        let endpoint: DeviceEndpoint
        if kind == .sensor {
            endpoint = parseSensor(m, what: what) ?? .none
        } else if kind == .cover, m.has("opener") {
            endpoint = parseOpener(m, what: what, id: id).map(DeviceEndpoint.opener) ?? .none
        } else if kind == .cover {
            endpoint = parseCover(m, what: what, id: id).map(DeviceEndpoint.cover) ?? .none
        } else {
            if let key = ["motor", "opener"].first(where: m.has) {
                ctx.error("\(key) in \(what) is for covers (kind: cover); a device that switches has relay: {node, channel}", at: m.keyNode(key))
            }
            if let key = ["unit", "device_class", "stale_after"].first(where: { m.has($0) }) {
                ctx.error("\(key) in \(what) is for sensors (kind: sensor)", at: m.keyNode(key))
            }
            endpoint = parseSwitchedEndpoint(m, what: what, id: id)
        }

        let confirm = m["confirm"].flatMap { ctx.bool($0) } ?? false
        let powerOn = m["power_on"].flatMap { ctx.oneOf($0, PowerOnPolicy.allCases.map(\.rawValue), what: "power_on") }
            .flatMap(PowerOnPolicy.init(rawValue:)) ?? .off
        // Stopping the controller leaves a relay as it is unless the device asks otherwise (a
        // heater: `shutdown: off`); with a restart in the same boot keeping every relay, an
        // upgrade then changes no line. Relays with a pulse or a max-on always go off.
        let shutdown = m["shutdown"].flatMap { ctx.oneOf($0, ShutdownPolicy.allCases.map(\.rawValue), what: "shutdown") }
            .flatMap(ShutdownPolicy.init(rawValue:)) ?? .leave
        let pulse = m["pulse"].flatMap(ctx.duration)
        let maxOn = m["max_on"].flatMap(ctx.duration)
        let minInterval = m["min_interval"].flatMap(ctx.duration)
        if let p = pulse, let mo = maxOn, mo < p {
            ctx.error("max_on (\(DurationParser.format(mo))) is shorter than pulse (\(DurationParser.format(p))) in \(what)", at: m["max_on"])
        }
        let interlock = m.string("interlock", expected: "an interlock group name")
        if interlock != nil, !m.has("relay") {
            ctx.error("interlock in \(what) needs a relay: only relays of one node can be interlocked", at: m["interlock"])
        }
        if let interlock, let id { interlockMarks.append((interlock, DeviceID(id), m["interlock"]?.mark)) }
        let deadTime = m["interlock_dead_time"].flatMap(ctx.duration)
        if m.has("interlock_dead_time"), interlock == nil {
            ctx.error("interlock_dead_time in \(what) needs an interlock group (interlock: NAME)", at: m.keyNode("interlock_dead_time"))
        }
        if let deadTime, deadTime > .seconds(60) {
            ctx.error("expected an interlock dead time of at most 60s, found \(DurationParser.format(deadTime))", at: m["interlock_dead_time"])
        }

        guard let id, let room, let kind else { return nil }
        return Device(id: DeviceID(id), room: room, kind: kind, names: names, watts: watts, endpoint: endpoint, confirm: confirm,
                      powerOn: powerOn, shutdown: shutdown, pulse: pulse, maxOn: maxOn, minInterval: minInterval,
                      interlock: interlock, interlockDeadTime: deadTime)
    }

    /// A cover worked by one push-button relay: `opener: {node, channel, pulse, travel_time,
    /// open_contact, closed_contact}` and `device_class` (garage, gate, door). The contacts are
    /// inputs of the same node, of kind contact.
    private func parseOpener(_ m: MapReader, what: String, id: String?) -> CoverOpener? {
        for key in Self.relayOnlyKeys + ["motor"] where m.has(key) {
            ctx.error("\(key) in \(what) is not for an opener: its relay and timing are given in opener: {node, channel, pulse, travel_time}", at: m.keyNode(key))
        }
        let classes = [CoverClass.garage, .gate, .door].map(\.rawValue)
        let deviceClass = m["device_class"].flatMap { ctx.oneOf($0, classes, what: "an opener's device class") }.flatMap(CoverClass.init(rawValue:)) ?? .garage
        guard let node = m["opener"],
              let om = ctx.map(node, what: "opener of \(what)", allowed: ["node", "channel", "pulse", "travel_time", "open_contact", "closed_contact"]) else {
            return nil
        }
        let nodeID = om.require("node", expected: "the id of the node whose board the opener's relay is on")
            .flatMap { reference($0, to: nodeIDs, what: "node") }
        let channel = om.require("channel", expected: "the board channel of the relay across the opener's button")
            .flatMap { ctx.int($0, expected: "a channel number (1 or more)", range: 1...64) }
        var pulse = Duration.seconds(1)
        if let p = om["pulse"], let d = ctx.duration(p) {
            if d < .milliseconds(100) || d > .seconds(10) {
                ctx.error("expected pulse between 100ms and 10s, found \(DurationParser.format(d))", at: p)
            } else {
                pulse = d
            }
        }
        var travel: Duration?
        if let t = om.require("travel_time", expected: "how long a full opening or closing takes, e.g. 15s"), let d = ctx.duration(t) {
            if d < .seconds(1) || d > .seconds(600) {
                ctx.error("expected travel_time between 1s and 10m, found \(DurationParser.format(d))", at: t)
            } else {
                travel = d
            }
        }
        func contact(_ key: String) -> DeviceID? {
            guard let n = om[key], let contact = reference(n, to: deviceIDs, what: "input") else { return nil }
            guard let input = inputDevices[contact] else {
                ctx.error("\(key) of \(what) must be an input of kind contact (inputs:), and '\(contact)' is not one", at: n)
                return nil
            }
            if input.kind != .contact {
                ctx.error("\(key) of \(what) must be an input of kind contact, and '\(contact)' is a \(input.kind.rawValue)", at: n)
                return nil
            }
            if let nodeID, input.node != nodeID {
                ctx.error("\(key) of \(what) is wired to node '\(input.node ?? "?")', the opener to '\(nodeID)'; the contacts must be on the opener's node", at: n)
                return nil
            }
            return contact
        }
        let open = contact("open_contact")
        let closed = contact("closed_contact")
        if let open, open == closed {
            ctx.error("open_contact and closed_contact of \(what) are the same input '\(open)'", at: om["closed_contact"])
        }
        guard let nodeID, let channel, let travel else { return nil }
        relayMarks.append((RelayRef(node: nodeID, channel: channel), DeviceID(id ?? "?"), om["channel"]?.mark))
        return CoverOpener(node: nodeID, channel: channel, pulse: pulse, travelTime: travel, openContact: open, closedContact: closed,
                           deviceClass: deviceClass)
    }

    /// A cover's motor: `motor: {node, up, down, open_time, close_time, end_margin, dead_time}`
    /// and `device_class`. Its relays' safety rules come from the motor (the two windings are
    /// interlocked, each runs at most its travel and the end margin, both start and stop off), so
    /// the keys of a relay's own rules are refused.
    private func parseCover(_ m: MapReader, what: String, id: String?) -> CoverMotor? {
        for key in Self.relayOnlyKeys where m.has(key) {
            ctx.error("\(key) in \(what) is not for a cover: its two relays are given in motor: {node, up, down, open_time, close_time}, and their interlock, dead time and longest run come from it", at: m.keyNode(key))
        }
        let classes = [CoverClass.shutter, .blind, .curtain, .shade, .awning, .window].map(\.rawValue)
        let deviceClass = m["device_class"].flatMap { ctx.oneOf($0, classes, what: "a cover device class") }.flatMap(CoverClass.init(rawValue:)) ?? .shutter
        guard let node = m.require("motor", expected: "its motor (motor: {node: NODE, up: CHANNEL, down: CHANNEL, open_time: 20s}) or its opener (opener: {node: NODE, channel: N, travel_time: 15s})"),
              let mm = ctx.map(node, what: "motor of \(what)", allowed: ["node", "up", "down", "open_time", "close_time", "end_margin", "dead_time"]) else {
            return nil
        }
        let nodeID = mm.require("node", expected: "the id of the node whose board the motor's relays are on")
            .flatMap { reference($0, to: nodeIDs, what: "node") }
        let up = mm.require("up", expected: "the board channel of the winding that opens it")
            .flatMap { ctx.int($0, expected: "a channel number (1 or more)", range: 1...64) }
        let down = mm.require("down", expected: "the board channel of the winding that closes it")
            .flatMap { ctx.int($0, expected: "a channel number (1 or more)", range: 1...64) }
        let travelRange = "between 1s and 10m"
        func travel(_ key: String, required: Bool) -> Duration? {
            guard let n = required ? mm.require(key, expected: "the time a full \(key == "open_time" ? "opening" : "closing") takes, e.g. 20s") : mm[key],
                  let d = ctx.duration(n) else { return nil }
            guard d >= .seconds(1), d <= .seconds(600) else {
                ctx.error("expected \(key) \(travelRange), found \(DurationParser.format(d))", at: n)
                return nil
            }
            return d
        }
        let openTime = travel("open_time", required: true)
        let closeTime = travel("close_time", required: false)
        let endMargin = mm["end_margin"].flatMap(ctx.duration)
        if let endMargin, endMargin > .seconds(60) {
            ctx.error("expected an end_margin of at most 60s, found \(DurationParser.format(endMargin))", at: mm["end_margin"])
        }
        let deadTime = mm["dead_time"].flatMap(ctx.duration)
        if let deadTime, deadTime > .seconds(60) {
            ctx.error("expected a dead_time of at most 60s, found \(DurationParser.format(deadTime))", at: mm["dead_time"])
        }
        if let up, let down, up == down {
            ctx.error("the up and down windings of \(what) are both on channel \(up); a cover's motor has two relays", at: mm["down"])
        }
        guard let nodeID, let up, let down, let openTime, up != down else { return nil }
        let cover = DeviceID(id ?? "?")
        relayMarks.append((RelayRef(node: nodeID, channel: up), cover, mm["up"]?.mark))
        relayMarks.append((RelayRef(node: nodeID, channel: down), cover, mm["down"]?.mark))
        return CoverMotor(node: nodeID, upChannel: up, downChannel: down, openTime: openTime, closeTime: closeTime,
                          endMargin: endMargin, deadTime: deadTime, deviceClass: deviceClass)
    }

    /// Where a device that switches is actuated: `relay` (our GPIO), `mqtt` (a device that
    /// lives elsewhere), or neither (a virtual device).
    private func parseSwitchedEndpoint(_ m: MapReader, what: String, id: String?) -> DeviceEndpoint {
        var endpoint = DeviceEndpoint.none
        if m.has("relay") && m.has("mqtt") {
            ctx.error("\(what) has both relay and mqtt; give one (relay for our GPIO, mqtt for a device that lives elsewhere)", at: m.keyNode("mqtt"))
        } else if let r = m["relay"] {
            if let rm = ctx.map(r, what: "relay of \(what)", allowed: ["node", "channel"]) {
                let nodeID = rm.require("node", expected: "the id of the node whose board it is on")
                    .flatMap { reference($0, to: nodeIDs, what: "node") }
                let channel = rm.require("channel", expected: "a channel number of the node's board")
                    .flatMap { ctx.int($0, expected: "a channel number (1 or more)", range: 1...64) }
                if let nodeID, let channel {
                    endpoint = .relay(RelayRef(node: nodeID, channel: channel))
                    relayMarks.append((RelayRef(node: nodeID, channel: channel), DeviceID(id ?? "?"), rm["channel"]?.mark))
                }
            }
        } else if let q = m["mqtt"] {
            if let qm = ctx.map(q, what: "mqtt of \(what)", allowed: ["command_topic", "state_topic", "payload_on", "payload_off"]) {
                let command = qm.string("command_topic", expected: "the topic that switches it, e.g. cmnd/plug/POWER", required: true)
                if let c = command, let problem = MQTTTopic.topicNameProblem(c) {
                    ctx.error("expected a command topic without wildcards, found '\(c)': \(problem)", at: qm["command_topic"])
                }
                if let command {
                    endpoint = .mqtt(MQTTDeviceEndpoint(
                        commandTopic: command,
                        stateTopic: qm.string("state_topic", expected: "the topic it reports its state on"),
                        payloadOn: qm.string("payload_on", expected: "the payload that switches it on") ?? "ON",
                        payloadOff: qm.string("payload_off", expected: "the payload that switches it off") ?? "OFF"
                    ))
                }
            }
        }
        return endpoint
    }

    /// A sensor: `mqtt: {state_topic, json_field}`, `unit`, `device_class`; none of the keys of
    /// a device that switches.
    private func parseSensor(_ m: MapReader, what: String) -> DeviceEndpoint? {
        for key in Self.switchingKeys where m.has(key) {
            ctx.error("\(key) in \(what) is for devices that switch; a sensor is only read from MQTT (mqtt: {state_topic: ...})", at: m.keyNode(key))
        }
        let unit = m.string("unit", expected: "the unit of its value, e.g. °C or %")
        let classes = SensorClass.allCases.map(\.rawValue)
        let deviceClass = m["device_class"].flatMap { ctx.oneOf($0, classes, what: "a sensor device class") }.flatMap(SensorClass.init(rawValue:))
        guard let q = m.require("mqtt", expected: "where its value comes from: mqtt: {state_topic: TOPIC, json_field: NAME}"),
              let qm = ctx.map(q, what: "mqtt of \(what)", allowed: ["state_topic", "json_field"]) else { return nil }
        guard let topic = qm.string("state_topic", expected: "the topic its value is published on, e.g. zigbee2mqtt/bedroom-climate", required: true) else {
            return nil
        }
        if let problem = MQTTTopic.topicNameProblem(topic) {
            ctx.error("expected a state topic without wildcards, found '\(topic)': \(problem)", at: qm["state_topic"])
            return nil
        }
        let field = qm.string("json_field", expected: "the JSON field holding the value, e.g. temperature or AM2301.Temperature")
        var staleAfter: Duration? = nil
        if let n = m["stale_after"], let d = ctx.duration(n) {
            if d < .seconds(10) || d > .seconds(7 * 86_400) {
                ctx.error("expected stale_after between 10s and 7d, found \(DurationParser.format(d))", at: n)
            } else {
                staleAfter = d
            }
        }
        return .sensor(SensorSource(stateTopic: topic, jsonField: field, unit: unit, deviceClass: deviceClass, staleAfter: staleAfter))
    }

    /// A channel used by two devices, or outside the node's board.
    func checkChannels() {
        var used: [RelayRef: DeviceID] = [:]
        for (ref, device, mark) in relayMarks {
            if let node = nodes.first(where: { $0.id == ref.node }), let board = boards[node.board],
               board.channels[ref.channel] == nil {
                let valid = board.channels.keys.sorted().map(String.init).joined(separator: ", ")
                ctx.error("channel \(ref.channel) is outside board '\(board.id)' of node '\(ref.node)' (channels: \(valid)) in device '\(device)'", at: mark)
            }
            if let other = used[ref] {
                ctx.error("channel \(ref.channel) of node '\(ref.node)' is used by both '\(other)' and '\(device)'", at: mark)
            } else {
                used[ref] = device
            }
        }
    }

    /// Every member of an interlock group must be a relay on the same node, or the group cannot
    /// be enforced; members that give a dead time must give the same one.
    func checkInterlocks() {
        var groupNode: [String: (node: NodeID, device: DeviceID)] = [:]
        var groupDeadTime: [String: (deadTime: Duration, device: DeviceID)] = [:]
        for (group, deviceID, mark) in interlockMarks {
            let device = devices.first { $0.id == deviceID }
            if let deadTime = device?.interlockDeadTime {
                if let first = groupDeadTime[group], first.deadTime != deadTime {
                    ctx.error("interlock group '\(group)' has two dead times: \(DurationParser.format(first.deadTime)) in '\(first.device)' and \(DurationParser.format(deadTime)) in '\(deviceID)'; give one (or set it on one member)", at: mark)
                } else if groupDeadTime[group] == nil {
                    groupDeadTime[group] = (deadTime, deviceID)
                }
            }
            guard let node = device?.relay?.node else { continue }
            if let first = groupNode[group] {
                if first.node != node {
                    ctx.error("interlock group '\(group)' spans nodes: '\(first.device)' is on '\(first.node)' but '\(deviceID)' is on '\(node)'; an interlock group must be on one node", at: mark)
                }
            } else {
                groupNode[group] = (node, deviceID)
            }
        }
    }
}
