import Foundation

extension CommunityGrammar {
    /// The value a mode has in `ha.name` (a scene to the grammar): "scene:" and its name.
    public static let scenePrefix = "scene:"
    /// The value a routine has in `ha.name` (a script to the grammar): "script:" and its shortcut.
    public static let scriptPrefix = "script:"

    /// One name the grammar's `{name}` can say, with the Home Assistant domain it has.
    public struct Name: Sendable, Equatable {
        public var spoken: String
        public var value: String
        public var domain: String
        public var area: String?
    }

    /// What `{name}` says in this house: every device's names (its value the name as configured,
    /// so our resolver reads it as it reads our own phrases), modes as scenes and routines with a
    /// shortcut as scripts.
    public static func names(in house: HouseConfiguration) -> [Name] {
        var result: [Name] = []
        var seen: Set<String> = []
        func add(_ spoken: String, _ value: String, _ domain: String, _ area: String?) {
            guard seen.insert(PhraseNormalizer.normalize(spoken) + "|" + domain).inserted else { return }
            result.append(Name(spoken: spoken, value: value, domain: domain, area: area))
        }
        for device in house.devices {
            let area = house.room(id: device.room)?.name
            for name in device.names { add(name, name, device.homeAssistantDomain, area) }
        }
        for mode in house.modes {
            for name in mode.names + [mode.id.rawValue] { add(name, scenePrefix + mode.id.rawValue, "scene", nil) }
        }
        for routine in house.routines where !routine.shortcut.isEmpty {
            add(routine.shortcut, scriptPrefix + routine.shortcut, "script", nil)
        }
        return result
    }

    /// The lists the house gives the grammar: `ha.name` and `ha.name@DOMAIN` for each domain
    /// it has (a template's `ha.name@light+switch` is their union), `ha.area` (rooms' names and
    /// aliases) and `ha.floor`.
    public static func lists(for house: HouseConfiguration) -> [String: PhraseList] {
        let names = Self.names(in: house)
        func list(_ of: [Name]) -> PhraseList { PhraseList(values: of.map { PhraseListValue(spoken: $0.spoken, value: $0.value) }) }
        let prefix = rulePrefix
        var lists: [String: PhraseList] = [prefix + "name": list(names)]
        for domain in Set(names.map(\.domain)) { lists[prefix + "name@" + domain] = list(names.filter { $0.domain == domain }) }
        lists[prefix + "area"] = PhraseList(values: house.rooms.flatMap { room in
            ([room.name] + room.aliases).map { PhraseListValue(spoken: $0, value: room.name) }
        })
        lists[prefix + "floor"] = PhraseList(values: house.floors.flatMap { floor in
            ([floor.name] + floor.aliases).map { PhraseListValue(spoken: $0, value: floor.name) }
        })
        return lists
    }
}

extension CommunityGrammar {
    /// The house's lists as hassil takes them (`TextSlotList` values with a context), for
    /// comparing with Home Assistant's recognizer on the same house: `{"lists": {"name": [{"in",
    /// "out", "context": {"domain", "area"}}], "area": [...], "floor": [...]}, "context": {"area"}}`,
    /// `context` the room the phrases are said in (hassil's `intent_context`).
    public static func hassilLists(for house: HouseConfiguration, saidIn area: String?) -> Data {
        var lists: [String: [[String: Any]]] = [:]
        lists["name"] = names(in: house).map { name in
            var context = ["domain": name.domain]
            if let area = name.area { context["area"] = area }
            return ["in": name.spoken, "out": name.value, "context": context]
        }
        let house = Self.lists(for: house)
        for list in ["area", "floor"] {
            lists[list] = house[rulePrefix + list]?.values.map { ["in": $0.spoken, "out": $0.value] }
        }
        let object: [String: Any] = ["lists": lists, "context": area.map { ["area": $0] } ?? [:]]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])) ?? Data("{}".utf8)
    }
}
