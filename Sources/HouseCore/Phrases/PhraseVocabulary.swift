/// Builds the slot lists a house provides to the phrase templates:
///
/// - `room`: room names, aliases and ids, and the names' possessives as typed without the
///   apostrophe ("the kitchen's light" reads "kitchens light");
/// - `floor`: floor names and aliases ("upstairs", "ground floor"; not the ids: "first" alone
///   would read "first floor lamp" two ways);
/// - `device`: device names, ids and kinds, singular ("lamp", "garage door", "light");
/// - `devices`: the same in the plural ("lamps", "lights"), each standing for its singular name;
/// - `mode`: mode names and ids;
/// - `routine`: routine shortcut phrases, ids, and shortcuts without a last "house";
/// - `ha.name`, `ha.area`, `ha.floor`: what the community grammar's templates say
///   (`CommunityGrammar.lists(for:)`).
///
/// Slot values are the names as configured (the spoken words' canonical spelling), so
/// resolution can match them exactly; ids spoken with spaces ("living room") give the id.
/// `number` and `duration` are built into the matcher (see `PhraseSpokenNumbers`).
public enum PhraseVocabulary {
    /// Names of the lists implemented in code rather than by values.
    public static let builtInLists: Set<String> = ["number", "duration"]

    /// "House" in the languages whose grammar has been tried with housectl: the word a routine's
    /// shortcut may end with and be said without.
    static let houseWords: Set<String> = ["house", "haus", "maison", "huis"]

    /// The house's slot lists.
    public static func lists(for house: HouseConfiguration) -> [String: PhraseList] {
        let rooms = placeList(house.rooms.map { ($0.id.rawValue, $0.name, $0.aliases) }, possessives: true)
        // A floor's id is not a word on its own ("first" would read "first floor lamp" two ways).
        let floors = placeList(house.floors.map { ($0.id.rawValue, $0.name, $0.aliases) }, ids: false, possessives: false)

        var devices = ListBuilder()
        var plurals = ListBuilder()
        func addDevice(_ name: String) {
            devices.add(name, value: name)
            plurals.add(pluralize(name), value: name)
        }
        for device in house.devices {
            for name in device.names {
                addDevice(name)
                // "bedside lamp" is also the "bedside light": a name ending in a kind word
                // answers to the kind's other words.
                for variant in HouseConfiguration.kindVariants(of: name, kindWords: device.kindWords) { addDevice(variant) }
            }
        }
        // Every device answers to its kind's words (its name, "lamp", "blind"), listed or not.
        for word in Set(house.devices.flatMap(\.kindWords)).sorted() { addDevice(word) }
        for device in house.devices where !isRoomPlusName(device, in: house) { addDevice(device.id.rawValue) }

        var modes = ListBuilder()
        for mode in house.modes {
            for name in mode.names { modes.add(name, value: name) }
            modes.add(mode.id.rawValue, value: mode.id.rawValue)
        }
        var routines = ListBuilder()
        for routine in house.routines where !routine.shortcut.isEmpty {
            routines.add(routine.shortcut, value: routine.shortcut)
            // "run the good morning routine": the id, and the shortcut without its "house"
            // ("Guten Morgen Haus": "guten morgen").
            routines.add(routine.id.rawValue.replacingOccurrences(of: "-", with: " "), value: routine.shortcut)
            let words = routine.shortcut.split(separator: " ")
            if words.count > 2, let last = words.last, houseWords.contains(PhraseNormalizer.normalize(String(last))) {
                routines.add(words.dropLast().joined(separator: " "), value: routine.shortcut)
            }
        }
        var lists = [
            "room": rooms, "floor": floors, "device": devices.list, "devices": plurals.list,
            "mode": modes.list, "routine": routines.list,
        ]
        lists.merge(CommunityGrammar.lists(for: house)) { ours, _ in ours }
        return lists
    }

    /// Rooms or floors: names and aliases (the spoken words), then ids, then possessives of the
    /// names and aliases not ending in "s" (so never one place's name read as another's).
    private static func placeList(_ places: [(id: String, name: String, aliases: [String])], ids: Bool = true,
                                  possessives: Bool) -> PhraseList {
        var list = ListBuilder()
        for place in places {
            list.add(place.name, value: place.name)
            for alias in place.aliases { list.add(alias, value: alias) }
        }
        if ids { for place in places { list.add(place.id, value: place.id) } }
        if possessives {
            for place in places {
                for spoken in [place.name] + place.aliases where !PhraseNormalizer.normalize(spoken).hasSuffix("s") {
                    list.add(spoken + "s", value: spoken)
                }
            }
        }
        return list.list
    }

    /// True when a device id just says its room and one of its names ("bedroom-light"): saying it
    /// is the same as saying room and name, so the id is not added as a name of its own.
    static func isRoomPlusName(_ device: Device, in house: HouseConfiguration) -> Bool {
        let id = PhraseNormalizer.normalize(device.id.rawValue)
        let names = (device.names + [device.kind.rawValue]).map(PhraseNormalizer.normalize)
        var roomNames = [device.room.rawValue]
        if let room = house.room(id: device.room) { roomNames += [room.name] + room.aliases }
        for r in roomNames.map(PhraseNormalizer.normalize) {
            for n in names where id == r + " " + n || id == n { return true }
        }
        return false
    }

    /// Simple English plural of the last word: "light" -> "lights", "switch" -> "switches",
    /// "battery" -> "batteries"; words already ending in "s" are left as they are.
    public static func pluralize(_ name: String) -> String {
        let words = PhraseNormalizer.tokens(name)
        guard var last = words.last else { return name }
        let vowels: Set<Character> = ["a", "e", "i", "o", "u"]
        if last.hasSuffix("ss") || last.hasSuffix("x") || last.hasSuffix("z") || last.hasSuffix("ch") || last.hasSuffix("sh") {
            last += "es"
        } else if last.hasSuffix("s") {
            // already plural-looking ("blinds")
        } else if last.hasSuffix("y"), last.count > 1, !vowels.contains(last[last.index(last.endIndex, offsetBy: -2)]) {
            last = String(last.dropLast()) + "ies"
        } else {
            last += "s"
        }
        return (words.dropLast() + [last]).joined(separator: " ")
    }

    /// Collects values, keeping the first value for each normalised spoken form.
    private struct ListBuilder {
        var seen: Set<String> = []
        var list = PhraseList(values: [])

        mutating func add(_ spoken: String, value: String) {
            let key = PhraseNormalizer.normalize(spoken)
            guard !key.isEmpty, seen.insert(key).inserted else { return }
            list.values.append(PhraseListValue(spoken: key, value: value))
        }
    }
}
