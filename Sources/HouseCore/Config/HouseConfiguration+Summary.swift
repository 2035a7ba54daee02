/// A short account of a loaded configuration, for `housectl config check`.
extension HouseConfiguration {
    public var summary: String {
        var lines: [String] = []
        let h = house
        lines.append("house: \(h.name) (\(h.timeZone.identifier), \(h.latitude), \(h.longitude))")
        switch mqtt.broker {
        case .embedded(let host, let port): lines.append("mqtt: embedded broker on \(host):\(port), base topic \(mqtt.baseTopic)")
        case .external(let host, let port):
            lines.append("mqtt: broker \(host):\(port)\(mqtt.tls != nil ? " (TLS)" : ""), base topic \(mqtt.baseTopic)")
        }
        if let web {
            let host = web.bind.contains(":") ? "[\(web.bind)]" : web.bind
            lines.append("web: the page on http://\(host):\(web.port)/ (primary node), " +
                         (web.passwordFile.map { "users in \($0)" } ?? "no password: this machine only"))
        }
        lines.append("nodes: \(nodes.count)")
        for n in nodes {
            let b = boards[n.board]
            let used = devices.filter { $0.node == n.id }.map(\.relayChannels.count).reduce(0, +)
            let inputLines = devices.filter { $0.input?.node == n.id }.map { "\($0.input!.line)" }
            lines.append("  \(n.id): \(b?.name ?? n.board), \(used)/\(b?.channels.count ?? 0) channels used, \(b?.activeLow == true ? "active-low" : "active-high"), chip \(n.chip ?? b?.chip ?? "?")"
                         + (n.room.map { ", in the \($0)" } ?? "")
                         + (inputLines.isEmpty ? "" : ", inputs on lines \(inputLines.joined(separator: ", "))"))
        }
        if let candidates = coordination.nodes {
            var line = "coordination: \(candidates.map(\.rawValue).joined(separator: ", ")) in that order, lease \(DurationParser.format(coordination.lease))"
            if case .embedded = mqtt.broker, candidates.count > 1 {
                line += "; note: the broker is embedded in a node, so the house keeps working only while that node does (put the broker on a machine of its own for a takeover to help)"
            }
            lines.append(line)
        } else {
            lines.append("coordination: \(nodes.first.map { "\($0.id) alone" } ?? "this node") (no takeover; coordination.nodes lists the nodes that may take over)")
        }
        if !floors.isEmpty {
            lines.append("floors: \(floors.count) (" + floors.map { floor in
                "\(floor.id): \(rooms(onFloor: floor.id).map(\.id).joined(separator: ", "))"
            }.joined(separator: "; ") + ")")
        }
        lines.append("rooms: \(rooms.count) (\(rooms.map(\.id).joined(separator: ", ")))")
        let relays = devices.filter { !$0.relayChannels.isEmpty }.count
        let remote = devices.filter { if case .mqtt = $0.endpoint { true } else { false } }.count
        let sensors = devices.filter { $0.kind == .sensor }.count
        let sensorText = sensors == 0 ? "" : sensors == 1 ? ", 1 sensor" : ", \(sensors) sensors"
        let inputs = devices.filter(\.kind.isInput).count
        let inputText = inputs == 0 ? "" : inputs == 1 ? ", 1 input" : ", \(inputs) inputs"
        lines.append("devices: \(devices.count) (\(relays) on relays, \(remote) over MQTT\(sensorText)\(inputText), \(devices.filter(\.confirm).count) need confirmation)")
        lines.append("modes: \(modes.count) (\(modes.map(\.id).joined(separator: ", ")))")
        lines.append("routines: \(routines.count)")
        for r in routines {
            var s = "  \(r.id): \"\(r.shortcut)\""
            if let w = r.relevant { s += ", relevant \(w)" }
            if let t = r.runAt { s += ", runs at \(t)" }
            lines.append(s)
        }
        lines.append("rules: \(rules.count)")
        let restricted = IntentSource.allCases.filter { permissions.grants[$0] != nil }.map(\.rawValue)
        lines.append("permissions: " + (restricted.isEmpty ? "none" : "restrictions for \(restricted.joined(separator: ", "))"))
        return lines.joined(separator: "\n")
    }
}
