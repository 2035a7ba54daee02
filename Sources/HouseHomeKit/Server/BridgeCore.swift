import HouseCore
import Logging

/// The bridge's shared state behind its connections: the accessory database, the devices'
/// states as HomeKit last saw them, and each connection's subscriptions. Reads, writes and
/// subscriptions come from the connections; state changes from the house, and become event
/// notifications to the connections subscribed to what changed.
actor BridgeCore {
    let database: AccessoryDatabase
    let house: any HomeKitHouse
    let logger: Logger
    private var states: [HomeKitItem: HomeKitDeviceState] = [:]
    private var connections: [Int: Peer] = [:]

    struct Key: Hashable {
        var aid: Int
        var iid: Int
    }

    /// A connection as the core knows it.
    struct Peer {
        var outgoing: AsyncStream<Outgoing>.Continuation
        var controllerID: String?
        var subscriptions: Set<Key> = []
        /// Values this connection is writing now, not to be sent back to it as events (HAP: a
        /// controller is not told of its own write).
        var ownWrites: [Key: HAPJSON] = [:]
    }

    init(database: AccessoryDatabase, house: any HomeKitHouse, logger: Logger) {
        self.database = database
        self.house = house
        self.logger = logger
    }

    func start() async {
        states = await house.states()
    }

    func register(_ id: Int, outgoing: AsyncStream<Outgoing>.Continuation) {
        connections[id] = Peer(outgoing: outgoing)
    }

    func unregister(_ id: Int) {
        connections[id] = nil
    }

    func verified(_ id: Int, controllerID: String) {
        connections[id]?.controllerID = controllerID
    }

    /// Closes the sessions of controllers whose pairing was removed (the asking connection's
    /// after its answer, which is already queued before this).
    func close(controllers: [String]) {
        guard !controllers.isEmpty else { return }
        for (_, peer) in connections where peer.controllerID.map(controllers.contains) == true {
            peer.outgoing.yield(.close)
        }
    }

    // MARK: Reads

    func accessoriesJSON() -> HAPJSON {
        database.json(states: states)
    }

    /// `GET /characteristics?id=aid.iid,...` with its options (`meta`, `perms`, `type`, `ev`).
    func read(_ request: HAPRequest, connection: Int) -> HAPResponse {
        guard let ids = request.parameter("id").map(Self.parseIDs), !ids.isEmpty, !ids.contains(where: { $0 == nil }) else {
            return .json(400, HAPJSON.object([("status", .int(HAPStatus.invalidValue))]).encoded)
        }
        let flag = { (name: String) in request.parameter(name) == "1" }
        var failed = false
        var items: [[(String, HAPJSON)]] = []
        for key in ids.compactMap({ $0 }) {
            var item: [(String, HAPJSON)] = [("aid", .int(key.aid)), ("iid", .int(key.iid))]
            guard let accessory = database.accessory(key.aid), let c = accessory.characteristic(key.iid) else {
                failed = true
                items.append(item + [("status", .int(HAPStatus.notFound))])
                continue
            }
            guard c.readable else {
                failed = true
                items.append(item + [("status", .int(HAPStatus.writeOnly))])
                continue
            }
            let state = accessory.item.flatMap { states[$0] }
            guard !c.role.unknown(state) else {
                // Not reported yet: the Home app shows "No Response", as it does for a device it cannot reach.
                failed = true
                items.append(item + [("status", .int(HAPStatus.unableToCommunicate))])
                continue
            }
            item.append(("value", c.role.value(state) ?? .null))
            if flag("type") { item.append(("type", .string(c.type))) }
            if flag("perms") { item.append(("perms", .array(c.permissions.map { .string($0.rawValue) }))) }
            if flag("ev") { item.append(("ev", .bool(connections[connection]?.subscriptions.contains(key) == true))) }
            if flag("meta") { item += [("format", .string(c.format.rawValue))] + c.metadata }
            items.append(item)
        }
        if failed { items = items.map { $0.contains { $0.0 == "status" } ? $0 : $0 + [("status", .int(0))] } }
        return .json(failed ? 207 : 200, HAPJSON.object([("characteristics", .array(items.map(HAPJSON.object)))]).encoded)
    }

    static func parseIDs(_ text: String) -> [Key?] {
        text.split(separator: ",").map { pair in
            let parts = pair.split(separator: ".")
            guard parts.count == 2, let aid = Int(parts[0]), let iid = Int(parts[1]) else { return nil }
            return Key(aid: aid, iid: iid)
        }
    }

    // MARK: Writes and subscriptions

    /// One item of a `PUT /characteristics`: an `ev` (subscribe or not) and/or a `value`.
    /// Returns the HAP status of the item.
    func write(_ item: HAPJSON, connection: Int) async -> (Key?, Int) {
        guard let aid = item["aid"]?.intValue, let iid = item["iid"]?.intValue else { return (nil, HAPStatus.invalidValue) }
        let key = Key(aid: aid, iid: iid)
        guard let accessory = database.accessory(aid), let c = accessory.characteristic(iid) else { return (key, HAPStatus.notFound) }
        if let ev = item["ev"] {
            guard let on = ev.boolValue else { return (key, HAPStatus.invalidValue) }
            guard c.notifies else { return (key, HAPStatus.notificationNotSupported) }
            if on { connections[connection]?.subscriptions.insert(key) } else { connections[connection]?.subscriptions.remove(key) }
        }
        guard let raw = item["value"] else { return (key, HAPStatus.success) }
        guard c.writable else { return (key, HAPStatus.readOnly) }
        guard let value = c.accepts(raw) else { return (key, HAPStatus.invalidValue) }
        if c.role == .identify {
            logger.info("homekit: identify \(accessory.item?.description ?? "the bridge")")
            return (key, HAPStatus.success)
        }
        guard let target = accessory.item else { return (key, HAPStatus.success) }
        guard let write = c.role.write(value, item: target) else {
            // Nothing to ask of the house (a mode's switch turned off: a mode is left by setting
            // another). The writer would show what it wrote; it is told the true value instead.
            if let now = c.role.value(states[target]), now != value, connections[connection]?.subscriptions.contains(key) == true {
                connections[connection]?.outgoing.yield(.message(Self.event([(key, now)])))
            }
            return (key, HAPStatus.success)
        }
        connections[connection]?.ownWrites[key] = value
        let result = await house.perform(write)
        switch result {
        case .done: break
        case .refused(let reason), .failed(let reason):
            connections[connection]?.ownWrites[key] = nil
            logger.notice("homekit: \(target) not switched: \(reason)")
        case .busy:
            connections[connection]?.ownWrites[key] = nil
            logger.notice("homekit: \(target) not switched: the house is busy")
        }
        // The house's answer comes before its change reaches the stream: a read that follows
        // must see the new state. The change is applied here, so the writer's own event is
        // left out here; later changes (even to the same value) are events again.
        if result == .done {
            let now = await house.states()
            // A mode set switches other modes' switches (and devices) too: all of them now.
            for (item, state) in now where states[item] != state { apply(item, state) }
        }
        connections[connection]?.ownWrites[key] = nil
        return (key, result.status)
    }

    // MARK: Events

    /// A device's or mode's state changed: the cache takes it, and each connection subscribed to
    /// a characteristic whose value changed (or a button that was pressed) gets one event with all
    /// of them (except what it wrote itself).
    func apply(_ item: HomeKitItem, _ state: HomeKitDeviceState) {
        let old = states[item]
        guard old != state else { return }
        states[item] = state
        guard let accessory = database.accessory(of: item) else { return }
        var changed: [(Key, HAPJSON)] = []
        for service in accessory.services {
            for c in service.characteristics where c.notifies {
                if let event = c.role.event(from: old, to: state) { changed.append((Key(aid: accessory.aid, iid: c.iid), event)) }
            }
        }
        guard !changed.isEmpty else { return }
        for peer in connections.values {
            let items = changed.filter { key, value in peer.subscriptions.contains(key) && peer.ownWrites[key] != value }
            guard !items.isEmpty else { continue }
            peer.outgoing.yield(.message(Self.event(items)))
        }
    }

    /// An `EVENT/1.0` message with these characteristics' values.
    static func event(_ items: [(Key, HAPJSON)]) -> [UInt8] {
        let list: [HAPJSON] = items.map { key, value in .object([("aid", .int(key.aid)), ("iid", .int(key.iid)), ("value", value)]) }
        return HAPResponse.event(HAPJSON.object([("characteristics", .array(list))]).encoded).encoded()
    }
}

/// What a connection's writer sends, in order.
enum Outgoing: Sendable {
    /// Bytes as they are (before the session is encrypted).
    case plain([UInt8])
    /// From now on every message is encrypted with this cipher.
    case encrypt(SessionCipher)
    /// A response or an event, sealed when the session is encrypted.
    case message([UInt8])
    /// Close the connection.
    case close
}
