import Yams

/// Inputs: buttons, contacts and motion sensors on GPIO lines (`inputs:`).
extension ConfigurationParser {
    static let inputKeys = ["id", "room", "kind", "names", "node", "line", "active_low", "bias", "debounce", "device_class",
                            "double_press", "long_press"]
    /// Home Assistant's binary sensor classes that a contact or motion sensor can be.
    static let contactClasses = ["door", "window", "garage_door", "opening", "lock"]
    static let motionClasses = ["motion", "occupancy", "presence"]

    /// One input: `{id, room, kind: button|contact|motion, node, line, active_low, bias,
    /// debounce, device_class, double_press, long_press}`, as a device of that kind.
    func parseInput(_ node: YNode) -> Device? {
        guard let m = ctx.map(node, what: "input", allowed: Self.inputKeys) else { return nil }
        let id = m.string("id", expected: "the input's id, e.g. hall-button", required: true)
        let what = "input '\(id ?? "?")'"
        let room = m.require("room", expected: "the id of the room it is in").flatMap { reference($0, to: roomIDs, what: "room") }
        let kinds: [DeviceKind] = [.button, .contact, .motion]
        let kind = m.require("kind", expected: "one of button, contact, motion")
            .flatMap { ctx.oneOf($0, kinds.map(\.rawValue), what: "an input kind") }.flatMap(DeviceKind.init(rawValue:))
        var names = m["names"].flatMap { ctx.strings($0, expected: "names people use for it") } ?? []
        if names.isEmpty, let kind { names = [kind.rawValue] }
        let nodeID = m.require("node", expected: "the id of the node whose GPIO it is wired to").flatMap { reference($0, to: nodeIDs, what: "node") }
        let line = m.require("line", expected: "its GPIO line (the BCM number on a Pi, e.g. 17)")
            .flatMap { ctx.int($0, expected: "a GPIO line offset (BCM number 0...511)", range: 0...511) }
        let activeLow = m["active_low"].flatMap { ctx.bool($0) } ?? true
        let bias = m["bias"].flatMap { ctx.oneOf($0, InputBias.allCases.map(\.rawValue), what: "a bias") }.flatMap(InputBias.init(rawValue:)) ?? .pullUp
        func duration(_ key: String, _ range: ClosedRange<Duration>, _ fallback: Duration) -> Duration {
            guard let n = m[key], let d = ctx.duration(n) else { return fallback }
            guard range.contains(d) else {
                ctx.error("expected \(key) between \(DurationParser.format(range.lowerBound)) and \(DurationParser.format(range.upperBound)), found \(DurationParser.format(d))", at: n)
                return fallback
            }
            return d
        }
        let debounce = duration("debounce", .zero ... .seconds(1), GPIOInput.defaultDebounce)
        if kind != .button, let key = ["double_press", "long_press"].first(where: m.has) {
            ctx.error("\(key) in \(what) is for buttons (kind: button)", at: m.keyNode(key))
        }
        let doublePress = duration("double_press", .milliseconds(100) ... .seconds(2), GPIOInput.defaultDoublePress)
        let longPress = duration("long_press", .milliseconds(200) ... .seconds(10), GPIOInput.defaultLongPress)
        if let dp = m["double_press"], doublePress >= longPress {
            ctx.error("double_press (\(DurationParser.format(doublePress))) must be shorter than long_press (\(DurationParser.format(longPress))) in \(what)", at: dp)
        }
        var deviceClass: String? = nil
        if let c = m["device_class"] {
            switch kind {
            case .contact: deviceClass = ctx.oneOf(c, Self.contactClasses, what: "a contact's device class")
            case .motion: deviceClass = ctx.oneOf(c, Self.motionClasses, what: "a motion sensor's device class")
            default: ctx.error("device_class in \(what) is for contacts and motion sensors", at: m.keyNode("device_class"))
            }
        }
        if let nodeID, let line, let id { inputMarks.append((nodeID, line, DeviceID(id), m["line"]?.mark)) }
        guard let id, let room, let kind, let nodeID, let line else { return nil }
        let input = GPIOInput(node: nodeID, line: line, activeLow: activeLow, bias: bias, debounce: debounce,
                              deviceClass: deviceClass ?? (kind == .motion ? "motion" : nil),
                              doublePress: doublePress, longPress: longPress)
        return Device(id: DeviceID(id), room: room, kind: kind, names: names, endpoint: .input(input))
    }

    /// An input line used twice on one node (by two inputs, or by an input and a relay channel
    /// of the node's board), or outside the lines the board profile leaves for inputs.
    func checkInputLines() {
        var used: [String: DeviceID] = [:]
        for (nodeID, line, device, mark) in inputMarks {
            let key = "\(nodeID)/\(line)"
            if let other = used[key] {
                ctx.error("line \(line) of node '\(nodeID)' is used by both inputs '\(other)' and '\(device)'", at: mark)
                continue
            }
            used[key] = device
            guard let node = nodes.first(where: { $0.id == nodeID }), let board = boards[node.board] else { continue }
            if let channel = board.channels.first(where: { $0.value == line })?.key {
                let relay = devices.first { d in d.node == nodeID && d.relayChannels.contains { $0.relay.channel == channel } }
                let owner = relay.map { "relay channel \(channel) ('\($0.id)')" } ?? "relay channel \(channel) of board '\(board.id)'"
                ctx.error("line \(line) of node '\(nodeID)' is \(owner), so input '\(device)' cannot use it", at: mark)
            } else if let free = board.inputLines, !free.contains(line) {
                ctx.error("line \(line) is not one board '\(board.id)' leaves for inputs (input_lines: \(free.map(String.init).joined(separator: ", "))) in input '\(device)'", at: mark)
            }
        }
    }
}
