import Foundation
import Yams

/// Reads a composed `house.yaml` tree into a `HouseConfiguration`, collecting every problem.
///
/// Ids of every section are indexed first, so a reference can be checked wherever it appears
/// regardless of the order of the sections.
final class ConfigurationParser {
    let ctx: ConfigContext
    let boards: [String: BoardProfile]
    /// Where the board profiles were looked for, for messages.
    let boardsLocation: String

    var roomIDs: [RoomID] = []
    var deviceIDs: [DeviceID] = []
    /// The devices of `kind: sensor` (read only), known before modes and rules are read.
    var sensorIDs: Set<DeviceID> = []
    /// The devices of `kind: cover` (a mode gives them a position), known before modes are read.
    var coverIDs: Set<DeviceID> = []
    /// The inputs (`inputs:`: buttons, contacts, motion sensors), read only, known before modes.
    var inputIDs: Set<DeviceID> = []
    /// The inputs parsed, by id (an opener's contacts are looked up here).
    var inputDevices: [DeviceID: Device] = [:]
    /// Input lines as written, with where, for the line checks.
    var inputMarks: [(node: NodeID, line: Int, device: DeviceID, mark: Mark?)] = []
    var modeIDs: [ModeID] = []
    var routineIDs: [RoutineID] = []
    var nodeIDs: [NodeID] = []
    var floorIDs: [FloorID] = []
    /// Every room id, name and alias, lowercased, to its room id.
    var roomWords: [String: RoomID] = [:]
    /// Every device name, lowercased.
    var deviceNames: Set<String> = []

    var nodes: [HouseCore.Node] = []
    var floors: [Floor] = []
    var rooms: [Room] = []
    var devices: [Device] = []
    /// Relay channels as written, with where, for the channel checks.
    var relayMarks: [(RelayRef, DeviceID, Mark?)] = []
    /// Interlock memberships as written (group, device id, where).
    var interlockMarks: [(String, DeviceID, Mark?)] = []

    static let topKeys = ["house", "mqtt", "nodes", "floors", "rooms", "devices", "inputs", "modes", "routines", "rules", "permissions", "web", "coordination", "suggestions", "homekit"]

    init(ctx: ConfigContext, boards: [String: BoardProfile], boardsLocation: String) {
        self.ctx = ctx
        self.boards = boards
        self.boardsLocation = boardsLocation
    }

    func parse(_ root: YNode) -> HouseConfiguration? {
        guard let top = ctx.map(root, what: "the configuration", allowed: Self.topKeys) else { return nil }
        index(top)

        let house = top.require("house", expected: "house: {name, timezone, latitude, longitude}").flatMap(parseHouse)
        let mqtt = top["mqtt"].flatMap(parseMQTT) ?? MQTTSettings()
        floors = list(top["floors"], what: "floor", parse: parseFloor)
        nodes = list(top["nodes"], what: "node", parse: parseNode)
        rooms = list(top.require("rooms", expected: "a list of rooms"), what: "room", parse: parseRoom)
        checkFloorNames(top)
        // Inputs first: an opener names its contacts.
        let inputs = list(top["inputs"], what: "input", parse: parseInput)
        inputDevices = Dictionary(inputs.map { ($0.id, $0) }) { first, _ in first }
        devices = list(top.require("devices", expected: "a list of devices"), what: "device", parse: parseDevice)
        devices += inputs
        checkChannels()
        checkInputLines()
        checkInterlocks()
        let modes = list(top["modes"], what: "mode", parse: parseMode)
        let routines = list(top["routines"], what: "routine", parse: parseRoutine)
        var ruleIndex = 0
        let rules = list(top["rules"], what: "rule") { node -> Rule? in
            ruleIndex += 1
            return self.parseRule(node, number: ruleIndex)
        }
        let permissions = top["permissions"].flatMap(parsePermissions) ?? Permissions()
        let web = top["web"].flatMap(parseWeb)
        let coordination = top["coordination"].flatMap(parseCoordination) ?? CoordinationSettings()
        let suggestions = top["suggestions"].flatMap(parseSuggestions) ?? SuggestionSettings()
        let homekit = top["homekit"].flatMap(parseHomeKit)

        guard let house else { return nil }
        let usedBoards = Set(nodes.map(\.board))
        let configuration = HouseConfiguration(
            house: house, mqtt: mqtt, nodes: nodes, boards: boards.filter { usedBoards.contains($0.key) },
            floors: floors, rooms: rooms, devices: devices, modes: modes, routines: routines, rules: rules,
            permissions: permissions, web: web, coordination: coordination, suggestions: suggestions, homekit: homekit
        )
        checkRoutineConfirmations(configuration, nodes: top["routines"])
        return configuration
    }

    // MARK: Index and duplicates

    private func index(_ top: MapReader) {
        roomIDs = ids(top["rooms"], what: "room")
        deviceIDs = ids(top["devices"], what: "device")
        let inputs: [DeviceID] = ids(top["inputs"], what: "input")
        inputIDs = Set(inputs)
        if case .sequence(let seq)? = top["inputs"] {
            for item in seq {
                guard let idNode = item.mapping?["id"], let id = idNode.scalar?.string, deviceIDs.contains(DeviceID(id)) else { continue }
                ctx.error("input id '\(id)' is also a device's id; ids of devices and inputs must be unique", at: idNode)
            }
        }
        deviceIDs += inputs
        modeIDs = ids(top["modes"], what: "mode")
        routineIDs = ids(top["routines"], what: "routine")
        nodeIDs = ids(top["nodes"], what: "node")
        floorIDs = ids(top["floors"], what: "floor")
        if case .sequence(let seq)? = top["rooms"] {
            for item in seq {
                guard let m = item.mapping, let id = m["id"]?.scalar?.string else { continue }
                var words = [id, id.replacingOccurrences(of: "-", with: " ")]
                if let n = m["name"]?.scalar?.string { words.append(n) }
                if case .sequence(let a)? = m["aliases"] { words += a.compactMap { $0.scalar?.string } }
                for w in words { roomWords[w.lowercased()] = RoomID(id) }
            }
        }
        for section in ["devices", "inputs"] {
            guard case .sequence(let seq)? = top[section] else { continue }
            for item in seq {
                guard let m = item.mapping else { continue }
                if m["kind"]?.scalar?.string == "sensor", let id = m["id"]?.scalar?.string { sensorIDs.insert(DeviceID(id)) }
                if m["kind"]?.scalar?.string == "cover", let id = m["id"]?.scalar?.string { coverIDs.insert(DeviceID(id)) }
                if case .sequence(let a)? = m["names"] { a.compactMap { $0.scalar?.string }.forEach { deviceNames.insert($0.lowercased()) } }
            }
        }
    }

    /// Ids of a list section, reporting duplicates where the second one appears.
    private func ids<Tag>(_ node: YNode?, what: String) -> [Identifier<Tag>] {
        guard case .sequence(let seq)? = node else { return [] }
        var seen: [String: Mark?] = [:]
        var out: [Identifier<Tag>] = []
        for item in seq {
            guard let idNode = item.mapping?["id"], let id = idNode.scalar?.string, !id.isEmpty else { continue }
            if let first = seen[id] {
                let whereFirst = first.map { " (first defined at \(ctx.lineText($0)))" } ?? ""
                ctx.error("duplicate \(what) id '\(id)'\(whereFirst); ids must be unique", at: idNode)
            } else {
                seen[id] = idNode.mark
                out.append(Identifier(id))
            }
        }
        return out
    }

    func list<T>(_ node: YNode?, what: String, parse: (YNode) -> T?) -> [T] {
        guard let node else { return [] }
        guard let items = ctx.sequence(node, expected: "\(what)s") else { return [] }
        return items.compactMap(parse)
    }

    /// Checks a reference to an id of a section; reports it with a suggestion when unknown.
    @discardableResult
    func reference<Tag>(_ node: YNode, to ids: [Identifier<Tag>], what: String, expected: String? = nil) -> Identifier<Tag>? {
        guard let s = ctx.string(node, expected: expected ?? "a \(what) id") else { return nil }
        guard ids.contains(Identifier(s)) else {
            let known = ids.isEmpty ? "none are defined" : "known: \(ids.joined(separator: ", "))"
            let hint = Suggestion.hint(for: s, in: ids.map(\.rawValue))
            ctx.error("unknown \(what) '\(s)'\(hint.isEmpty ? " (\(known))" : hint)", at: node)
            return nil
        }
        return Identifier(s)
    }

    /// A room reference that may be an id, display name or alias; returns the room id.
    func roomReference(_ node: YNode) -> RoomID? {
        guard let s = ctx.string(node, expected: "a room id, name or alias") else { return nil }
        if let id = roomWords[s.lowercased()] { return id }
        let hint = Suggestion.hint(for: s, in: roomIDs.map(\.rawValue))
        ctx.error("unknown room '\(s)'\(hint.isEmpty ? " (known: \(roomIDs.joined(separator: ", ")))" : hint)", at: node)
        return nil
    }

    // MARK: house, mqtt, nodes, rooms

    private func parseHouse(_ node: YNode) -> HouseInfo? {
        guard let m = ctx.map(node, what: "house", allowed: ["name", "timezone", "latitude", "longitude", "confirm_above", "language"]) else { return nil }
        let name = m.string("name", expected: "the house's name", required: true)
        var zone: HouseZone?
        if let z = m.require("timezone", expected: "an IANA time zone such as Europe/London"),
           let s = ctx.string(z, expected: "an IANA time zone such as Europe/London") {
            zone = HouseZone(identifier: s)
            if zone == nil {
                // Only on this error: Foundation's list of zones is ICU's.
                let hint = Suggestion.hint(for: s, in: TimeZone.knownTimeZoneIdentifiers)
                ctx.error("unknown time zone '\(s)'\(hint); expected an IANA time zone such as Europe/London", at: z)
            }
        }
        let lat = m.require("latitude", expected: "degrees north, -90...90")
            .flatMap { ctx.double($0, expected: "a latitude in degrees, -90...90", range: -90...90) }
        let lon = m.require("longitude", expected: "degrees east, -180...180")
            .flatMap { ctx.double($0, expected: "a longitude in degrees, -180...180", range: -180...180) }
        let confirmAbove = m["confirm_above"].flatMap { ctx.int($0, expected: "a number of devices, 0 or more", range: 0...10_000) }
        var language = "en"
        if let node = m["language"], let text = ctx.string(node, expected: "a language code such as en, de or fr") {
            if text.range(of: #"^[a-z]{2,3}(-[A-Za-z]{2,4})?$"#, options: .regularExpression) != nil {
                language = text
            } else {
                ctx.error("'\(text)' is not a language code; expected one such as en, de, fr or pt-BR", at: node)
            }
        }
        guard let name, let zone, let lat, let lon else { return nil }
        return HouseInfo(name: name, timeZone: zone, latitude: lat, longitude: lon, confirmAbove: confirmAbove ?? 5, language: language)
    }

    private func parseMQTT(_ node: YNode) -> MQTTSettings? {
        let keys = ["broker", "host", "port", "username", "password_file", "password_env", "tls",
                    "base_topic", "discovery_prefix", "keepalive", "embedded", "protocol"]
        guard let m = ctx.map(node, what: "mqtt", allowed: keys) else { return nil }
        var s = MQTTSettings()
        let kind = m["broker"].flatMap { ctx.oneOf($0, ["embedded", "external"], what: "broker") }
            ?? (m.has("host") ? "external" : "embedded")
        let host = m.string("host", expected: "a host name or address")
        let port = m["port"].flatMap { ctx.int($0, expected: "a TCP port, 1...65535", range: 1...65535) }
        if kind == "external" && host == nil && !m.has("host") {
            ctx.error("missing key 'host' in mqtt (expected the broker's host name for an external broker)", at: m.mark)
        }
        if let p = m["protocol"], let text = ctx.oneOf(p, ["5", "3.1.1"], what: "MQTT protocol version") {
            s.protocolVersion = MQTTSettings.ProtocolVersion(rawValue: text) ?? .v5
        }
        // The broker is set once TLS is known: an external broker with TLS defaults to port 8883.
        s.username = m.string("username", expected: "a user name")
        s.passwordFile = m.string("password_file", expected: "a path to a file holding the password")
        s.passwordEnv = m.string("password_env", expected: "an environment variable name")
        if s.passwordFile != nil && s.passwordEnv != nil {
            ctx.error("give either password_file or password_env in mqtt, not both", at: m.keyNode("password_env"))
        }
        if let t = m["tls"] {
            if case .scalar = t {
                if ctx.bool(t, expected: "true, false or a mapping {ca_file, cert_file, key_file, verify}") == true {
                    s.tls = MQTTSettings.TLS()
                }
            } else if let tm = ctx.map(t, what: "mqtt.tls", allowed: ["ca_file", "cert_file", "key_file", "verify"]) {
                s.tls = MQTTSettings.TLS(
                    caFile: tm.string("ca_file", expected: "a path to a CA certificate"),
                    certFile: tm.string("cert_file", expected: "a path to a client certificate"),
                    keyFile: tm.string("key_file", expected: "a path to a client key"),
                    verify: tm["verify"].flatMap { ctx.bool($0) } ?? true
                )
            }
        }
        if let e = m["embedded"] {
            if kind != "embedded" {
                ctx.error("mqtt.embedded guards the embedded broker; this configuration connects to an external one", at: m.keyNode("embedded")?.mark ?? m.mark)
            } else if let em = ctx.map(e, what: "mqtt.embedded", allowed: ["password_file", "acl_file", "cert_file", "key_file", "local_port"]) {
                let users = em.string("password_file", expected: "a path to the broker's users (user:password or user:$sha256$SALT$HEX lines)", required: true)
                let cert = em.string("cert_file", expected: "a path to the broker's certificate (PEM)")
                let key = em.string("key_file", expected: "a path to the broker's private key (PEM)")
                if (cert == nil) != (key == nil) {
                    ctx.error("give both cert_file and key_file in mqtt.embedded, or neither", at: em.keyNode(cert == nil ? "key_file" : "cert_file")?.mark ?? em.mark)
                }
                let localPort = em["local_port"].flatMap { ctx.int($0, expected: "a TCP port, 1...65535", range: 1...65535) }
                if let users {
                    s.embedded = MQTTSettings.EmbeddedListener(passwordFile: users, aclFile: em.string("acl_file", expected: "a path to an ACL file"),
                                                               certFile: cert, keyFile: key, localPort: localPort ?? 1883)
                }
                if users != nil && s.username == nil {
                    ctx.error("the embedded broker asks every client to log in, this controller too: give mqtt.username and mqtt.password_file (or password_env), a user of mqtt.embedded.password_file",
                              at: em.mark)
                }
                if cert != nil, case let p = port ?? 8883, p == (localPort ?? 1883) {
                    ctx.error("mqtt.embedded.local_port \(p) is the TLS listener's port too; give local_port another (this machine's own plain port)",
                              at: em.keyNode("local_port")?.mark ?? em.mark)
                }
            }
        }
        if kind == "embedded", let host, !WebSettings.isLoopback(host), s.embedded == nil, !m.has("embedded") {
            ctx.error("the embedded broker admits every client without a password, so it listens on this machine only (127.0.0.1), not \(host); to share it with other Pis give it users and a certificate (mqtt.embedded: {password_file, cert_file, key_file}), or run mosquitto (deploy/) and set broker: external",
                      at: m.keyNode("host")?.mark ?? m.mark)
        }
        s.broker = kind == "embedded"
            ? .embedded(host: host ?? "127.0.0.1", port: port ?? (s.embedded?.tls == true ? 8883 : 1883))
            : .external(host: host ?? "localhost", port: port ?? (s.tls != nil ? 8883 : 1883))
        if let b = m["base_topic"], let t = ctx.string(b, expected: "a topic prefix such as house") {
            if t.isEmpty || t.contains("#") || t.contains("+") || t.hasSuffix("/") || t.hasPrefix("/") {
                ctx.error("expected a topic prefix without wildcards or leading/trailing '/', found '\(t)'", at: b)
            } else {
                s.baseTopic = t
            }
        }
        if let d = m["discovery_prefix"] {
            if case .scalar(let sc) = d, ["false", "no", "off"].contains(sc.string.lowercased()) {
                s.discoveryPrefix = nil
            } else {
                s.discoveryPrefix = ctx.string(d, expected: "a topic prefix or false") ?? s.discoveryPrefix
            }
        }
        s.keepalive = m["keepalive"].flatMap { ctx.int($0, expected: "seconds, 5...3600", range: 5...3600) } ?? s.keepalive
        return s
    }

    private func parseWeb(_ node: YNode) -> WebSettings? {
        guard let m = ctx.map(node, what: "web", allowed: ["port", "bind", "password_file"]) else { return nil }
        var s = WebSettings()
        s.port = m["port"].flatMap { ctx.int($0, expected: "a TCP port, 0...65535 (0: any free one)", range: 0...65535) } ?? s.port
        s.bind = m.string("bind", expected: "an address to listen on, e.g. 127.0.0.1 or 0.0.0.0") ?? s.bind
        s.passwordFile = m.string("password_file", expected: "a path to a file of user:bcrypt-hash lines (housectl web passwd makes one)")
        if !s.isLoopback && s.passwordFile == nil {
            ctx.error("web.bind \(s.bind) reaches beyond this machine, so the page needs a password: set web.password_file (housectl web passwd --file FILE makes one), or bind to 127.0.0.1",
                      at: m.keyNode("bind")?.mark ?? m.mark)
        }
        return s
    }

    private func parseHomeKit(_ node: YNode) -> HomeKitSettings? {
        guard let m = ctx.map(node, what: "homekit", allowed: ["enabled", "bind", "port", "pin_file"]) else { return nil }
        var s = HomeKitSettings()
        s.enabled = m["enabled"].flatMap { ctx.bool($0) } ?? s.enabled
        s.bind = m.string("bind", expected: "an address to listen on, e.g. 0.0.0.0") ?? s.bind
        s.port = m["port"].flatMap { ctx.int($0, expected: "a TCP port, 0...65535 (0: any free one)", range: 0...65535) } ?? s.port
        s.pinFile = m.string("pin_file", expected: "a path to a file holding the setup code XXX-XX-XXX")
        return s
    }

    private func parseCoordination(_ node: YNode) -> CoordinationSettings? {
        guard let m = ctx.map(node, what: "coordination", allowed: ["nodes", "lease"]) else { return nil }
        var s = CoordinationSettings()
        if let l = m["lease"], let lease = ctx.duration(l) {
            if CoordinationSettings.leaseRange.contains(lease) {
                s.lease = lease
            } else {
                ctx.error("coordination.lease \(DurationParser.format(lease)) is outside 2s...2m (a coordinator renews its claim every third of it; a dead one is replaced after about that long)", at: l)
            }
        }
        if let n = m["nodes"], let items = ctx.sequence(n, expected: "the node ids that may coordinate, the preferred first") {
            let chosen = items.compactMap { reference($0, to: nodeIDs, what: "node") }
            if chosen.isEmpty && !items.isEmpty { return s }
            if chosen.isEmpty {
                ctx.error("coordination.nodes is empty: at least one node must be able to coordinate the house", at: n)
            } else if Set(chosen).count != chosen.count {
                ctx.error("coordination.nodes names a node twice", at: n)
            } else {
                s.nodes = chosen
            }
        }
        return s
    }

    private func parseSuggestions(_ node: YNode) -> SuggestionSettings? {
        guard let m = ctx.map(node, what: "suggestions", allowed: ["enabled", "min_occurrences", "min_weeks"]) else { return nil }
        var s = SuggestionSettings()
        s.enabled = m["enabled"].flatMap { ctx.bool($0) } ?? s.enabled
        let o = SuggestionSettings.occurrenceRange, w = SuggestionSettings.weekRange
        s.minOccurrences = m["min_occurrences"].flatMap {
            ctx.int($0, expected: "a number of occurrences, \(o.lowerBound)...\(o.upperBound)", range: o)
        } ?? s.minOccurrences
        s.minWeeks = m["min_weeks"].flatMap { ctx.int($0, expected: "a number of weeks, \(w.lowerBound)...\(w.upperBound)", range: w) } ?? s.minWeeks
        return s
    }

    private func parseNode(_ node: Yams.Node) -> HouseCore.Node? {
        guard let m = ctx.map(node, what: "node", allowed: ["id", "board", "chip", "room"]) else { return nil }
        let id = m.string("id", expected: "the node's id (its hostname, e.g. pi-main)", required: true)
        var board: String?
        if let b = m.require("board", expected: "a board profile id (a file in \(boardsLocation))") {
            if let s = ctx.string(b, expected: "a board profile id") {
                if boards[s] != nil {
                    board = s
                } else {
                    let known = boards.isEmpty ? "no board profiles found there" : "known: \(boards.keys.sorted().joined(separator: ", "))"
                    let hint = Suggestion.hint(for: s, in: boards.keys)
                    ctx.error("unknown board '\(s)': no \(s).yaml in \(boardsLocation)\(hint.isEmpty ? " (\(known))" : hint)", at: b)
                }
            }
        }
        let chip = m.string("chip", expected: "a GPIO chip name, path, label or number")
        let room = m["room"].flatMap(roomReference)
        guard let id, let board else { return nil }
        return HouseCore.Node(id: NodeID(id), board: board, chip: chip, room: room)
    }

    private func parseRoom(_ node: Yams.Node) -> Room? {
        guard let m = ctx.map(node, what: "room", allowed: ["id", "name", "aliases", "floor"]) else { return nil }
        guard let id = m.string("id", expected: "the room's id, e.g. living-room", required: true) else { return nil }
        let name = m.string("name", expected: "the room's display name")
            ?? id.replacingOccurrences(of: "-", with: " ").capitalized
        let aliases = m["aliases"].flatMap { ctx.strings($0, expected: "other names for the room") } ?? []
        let floor = m["floor"].flatMap { reference($0, to: floorIDs, what: "floor") }
        return Room(id: RoomID(id), name: name, aliases: aliases, floor: floor)
    }

    private func parseFloor(_ node: Yams.Node) -> Floor? {
        guard let m = ctx.map(node, what: "floor", allowed: ["id", "name", "aliases"]) else { return nil }
        guard let id = m.string("id", expected: "the floor's id, e.g. ground", required: true) else { return nil }
        let name = m.string("name", expected: "the floor's display name, e.g. Ground floor")
            ?? id.replacingOccurrences(of: "-", with: " ").capitalized
        let aliases = m["aliases"].flatMap { ctx.strings($0, expected: "other names for the floor, e.g. downstairs") } ?? []
        return Floor(id: FloorID(id), name: name, aliases: aliases)
    }

    /// A word that names a floor may not also name a room or another floor: "upstairs" must
    /// mean one thing.
    private func checkFloorNames(_ top: MapReader) {
        guard case .sequence(let seq)? = top["floors"] else { return }
        var seen: [String: FloorID] = [:]
        for item in seq {
            guard let id = item.mapping?["id"]?.scalar?.string, let floor = floors.first(where: { $0.id.rawValue == id }) else { continue }
            let words = [id, id.replacingOccurrences(of: "-", with: " "), floor.name] + floor.aliases
            for word in Set(words.map { $0.lowercased() }) {
                let at = item.mapping?["aliases"] ?? item
                if let room = roomWords[word] {
                    ctx.error("'\(word)' names both floor '\(floor.id)' and room '\(room)'; give the floor or the room another name", at: at)
                } else if let other = seen[word] {
                    ctx.error("'\(word)' names both floor '\(other)' and floor '\(floor.id)'", at: at)
                } else {
                    seen[word] = floor.id
                }
            }
        }
    }

    // MARK: permissions

    private func parsePermissions(_ node: Yams.Node) -> Permissions? {
        let sources = IntentSource.allCases.map(\.rawValue)
        guard let m = ctx.map(node, what: "permissions", allowed: sources) else { return nil }
        var grants: [IntentSource: Permissions.Grant] = [:]
        for source in IntentSource.allCases {
            guard let g = m[source.rawValue],
                  let gm = ctx.map(g, what: "permissions.\(source.rawValue)",
                                   allowed: ["deny_devices", "deny_modes", "confirm_devices"]) else { continue }
            var grant = Permissions.Grant()
            if let d = gm["deny_devices"], let items = ctx.sequence(d, expected: "device ids") {
                grant.denyDevices = Set(items.compactMap { reference($0, to: deviceIDs, what: "device") })
            }
            if let d = gm["deny_modes"], let items = ctx.sequence(d, expected: "mode ids") {
                grant.denyModes = Set(items.compactMap { reference($0, to: modeIDs, what: "mode") })
            }
            if let c = gm["confirm_devices"] {
                grant.allowConfirmDevices = ctx.bool(c) ?? true
                if grant.allowConfirmDevices && !source.canConfirm {
                    ctx.error("\(source.rawValue) cannot confirm: \(HouseDialog.sourceName(source)) never asks \"are you sure?\", so confirm: true devices are always refused from it (leave confirm_devices out)", at: c)
                }
            }
            grants[source] = grant
        }
        return Permissions(grants: grants)
    }
}
