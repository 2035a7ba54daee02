extension PhraseIntentBuilder {
    /// The community grammar's intents as ours (`CommunityGrammar.intents`), from its slots
    /// (`name`, `area`, `floor`, `domain`, `device_class`, `brightness`, `position`, ...):
    /// - `HassTurnOn`/`HassTurnOff`: a device, or every device of a domain or cover class in a
    ///   room or on a floor, switched (covers and valves opened or closed); a scene's name sets
    ///   its mode, a script's runs its routine;
    /// - `HassSetPosition`: a cover moved to a position;
    /// - `HassLightSet`, `HassClimateSetTemperature`, `HassFanSetSpeed`: asked of the device,
    ///   answered with what it can do (a relay cannot dim);
    /// - `HassGetState`: which devices are on or open; `HassClimateGetTemperature`: the room's sensors.
    static func grammarIntent(name: String, slot: (String) -> String?) -> HouseIntent? {
        let here = slot("here") == "true"
        let device = slot("name")
        switch name {
        case "HassTurnOn", "HassTurnOff":
            let on = name == "HassTurnOn"
            if let device, device.hasPrefix(CommunityGrammar.scenePrefix) {
                guard on else { return nil }
                // A scene said with a room or floor ("Nacht im Büro") sets the mode there only.
                return .setMode(SetHouseModeIntent(mode: String(device.dropFirst(CommunityGrammar.scenePrefix.count)),
                                                   rooms: slot("area").map { [$0] }, floor: slot("floor"), here: here))
            }
            if let device, device.hasPrefix(CommunityGrammar.scriptPrefix) {
                guard on else { return nil }
                return .runRoutine(RunRoutineIntent(routine: String(device.dropFirst(CommunityGrammar.scriptPrefix.count))))
            }
            // Covers and valves open and close ("open the shutter": a cover's "off" would stop it).
            let domains = (slot("domain") ?? slot(CommunityGrammar.domainSlot) ?? "").split(separator: "+")
            let opens = (!domains.isEmpty && domains.allSatisfy { $0 == "cover" || $0 == "valve" })
                || slot("device_class").flatMap(CoverClass.init(rawValue:)) != nil
            let action: HouseAction = opens ? (on ? .open : .close) : (on ? .on : .off)
            return .control(control(slot, device: device, action: action))
        case "HassSetPosition":
            guard let position = slot("position").flatMap(Int.init) else { return nil }
            var intent = control(slot, device: device, action: nil)
            intent.capability = .position
            intent.position = position
            return .control(intent)
        case "HassLightSet":
            var intent = control(slot, device: device ?? (slot("domain") == nil ? "light" : nil), action: nil)
            intent.capability = slot("color") != nil ? .colour : slot("temperature") != nil ? .colourTemperature : .brightness
            return .control(intent)
        case "HassClimateSetTemperature":
            var intent = control(slot, device: device ?? "heater", action: nil)
            intent.capability = .temperature
            return .control(intent)
        case "HassFanSetSpeed":
            var intent = control(slot, device: device ?? "fan", action: nil)
            intent.capability = .speed
            return .control(intent)
        case "HassGetState":
            let what = device ?? slot("device_class").map(coverWord) ?? slot("domain").map(domainWord)
            return .query(QueryHouseStatusIntent(queryType: .deviceStates, room: slot("area"), floor: slot("floor"), device: what,
                                                 plural: device == nil && what != nil, here: here))
        case "HassClimateGetTemperature":
            return .query(QueryHouseStatusIntent(queryType: .deviceStates, room: slot("area"), floor: slot("floor"),
                                                 device: device ?? "sensor", plural: device == nil, here: here))
        default:
            return nil
        }
    }

    /// A control of the named device, or of every device of the slots' domain or cover class. The
    /// speaker's room (`here`) is left to the resolver, as for our own phrases: a name found in
    /// several rooms asks which.
    ///
    /// A domain with no place at all is the whole house: the grammar has such templates only for
    /// "everywhere" ("alle Lichter aus", slot combination `domain_all`); its others take the
    /// speaker's room.
    private static func control(_ slot: (String) -> String?, device: String?, action: HouseAction?) -> HouseControlIntent {
        let what = device ?? slot("device_class").map(coverWord) ?? slot("domain").map(domainWord)
        let plural = device == nil && what != nil
        let nowhere = slot("area") == nil && slot("floor") == nil && slot("here") != "true"
        return HouseControlIntent(room: slot("area"), floor: slot("floor"), action: action, device: what,
                                  plural: plural, wholeHouse: plural && nowhere && action != nil)
    }

    /// The kind word of a cover class ("garage" is the garage door).
    private static func coverWord(_ deviceClass: String) -> String {
        CoverClass(rawValue: deviceClass)?.words.first ?? deviceClass
    }

    /// The kind word of a Home Assistant domain.
    private static func domainWord(_ domain: String) -> String {
        switch domain {
        case "binary_sensor": "sensor"
        default: domain
        }
    }
}
