import Foundation

/// Matching spoken names against the house: rooms by id, name or alias; devices by id or name,
/// with plural names ("lights") matching every device of that name.
extension HouseConfiguration {
    /// Lowercased, trimmed, single-spaced, without a leading "the"/"all"/"all the".
    static func normalize(_ text: String) -> String {
        var t = text.lowercased().replacingOccurrences(of: "_", with: " ")
            .split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        for prefix in ["all the ", "all ", "the ", "my "] where t.hasPrefix(prefix) {
            t.removeFirst(prefix.count)
        }
        return t
    }

    /// The room a spoken room name refers to.
    public func room(matching text: String) -> Room? {
        // A room id as it is (a `set` topic, a typed intent): no need to normalize every name.
        if let exact = rooms.first(where: { $0.id.rawValue == text }) { return exact }
        let t = Self.normalize(text)
        return rooms.first { room in room.id.rawValue.lowercased() == t || Self.spokenNames(of: room).contains(t) }
    }

    /// The floor a spoken floor name refers to ("upstairs", "the ground floor").
    public func floor(matching text: String) -> Floor? {
        let t = Self.normalize(text)
        return floors.first { floor in floor.id.rawValue.lowercased() == t || Self.spokenNames(of: floor).contains(t) }
    }

    /// How a room is said: its id with spaces, its name and its aliases, normalized.
    static func spokenNames(of room: Room) -> [String] { spokenNames(id: room.id.rawValue, name: room.name, aliases: room.aliases) }

    /// How a floor is said, as for a room.
    static func spokenNames(of floor: Floor) -> [String] { spokenNames(id: floor.id.rawValue, name: floor.name, aliases: floor.aliases) }

    private static func spokenNames(id: String, name: String, aliases: [String]) -> [String] {
        [id.replacingOccurrences(of: "-", with: " "), normalize(name)] + aliases.map(normalize)
    }

    /// Words a device answers to: id, id with spaces, names, and "<room> <name>" combinations.
    func words(for device: Device) -> Set<String> {
        var w: Set<String> = [device.id.rawValue.lowercased(), device.id.rawValue.replacingOccurrences(of: "-", with: " ")]
        let names = device.names.map(Self.normalize).flatMap { [$0] + Self.kindVariants(of: $0, kindWords: device.kindWords) }
        w.formUnion(names)
        if let room = room(id: device.room) {
            for r in Self.spokenNames(of: room) { for n in names { w.insert("\(r) \(n)") } }
        }
        return w
    }

    /// Devices answering to a spoken name, in `roomID` or the whole house, and whether the name
    /// was a plural.
    ///
    /// The rules, in order: a singular name a device has ("kitchen light", "lamp") means the
    /// devices with that name; a singular kind word no device has as a name ("the fan") means the
    /// devices of that kind; a plural ("lights", "lamps", "blinds") means every device with that
    /// name *and* every device of that kind (`DeviceKind.words`: "lamps" are lights too), so
    /// "the living room lights" are the ceiling light and the floor lamp. With `plural` set (the
    /// phrase said the plural and passes the singular), a singular name is read as that plural.
    public func devices(matching text: String, inRoom roomID: RoomID? = nil, plural: Bool = false) -> (devices: [Device], plural: Bool) {
        devices(matching: text, inRooms: roomID.map { [$0] }, plural: plural)
    }

    /// Devices answering to a spoken name among the rooms `roomIDs` (a floor's rooms), or the
    /// whole house when nil; the rules are those of `devices(matching:inRoom:plural:)`.
    public func devices(matching text: String, inRooms roomIDs: Set<RoomID>?, plural: Bool = false) -> (devices: [Device], plural: Bool) {
        // A device id as it is (a `set` topic, a typed intent): that device.
        if !plural, let exact = devices.first(where: { $0.id.rawValue == text }), roomIDs?.contains(exact.room) ?? true {
            return ([exact], false)
        }
        let t = Self.normalize(text)
        let scope = devices(inRooms: roomIDs)
        if plural || text.lowercased().hasPrefix("all ") {
            let found = ofNameOrKind(t, in: scope)
            if !found.isEmpty { return (found, true) }
        } else {
            let exact = scope.filter { words(for: $0).contains(t) }
            if !exact.isEmpty { return (exact, false) }
            let ofKind = scope.filter { $0.kindWords.contains(t) }
            if !ofKind.isEmpty { return (ofKind, false) }
        }
        for singular in Self.singulars(of: t) {
            let found = ofNameOrKind(singular, in: scope)
            if !found.isEmpty { return (found, true) }
        }
        return ([], false)
    }

    /// Devices of `scope` named `word` (singular), or of a kind `word` names; a room-qualified
    /// kind ("kitchen light") counts for the devices of that kind in that room.
    private func ofNameOrKind(_ word: String, in scope: [Device]) -> [Device] {
        scope.filter { device in
            if words(for: device).contains(word) || device.kindWords.contains(word) { return true }
            guard let room = room(id: device.room) else { return false }
            return Self.spokenNames(of: room).contains { r in device.kindWords.contains { "\(r) \($0)" == word } }
        }
    }

    /// A name ending in one of its kind's words, with the kind's other words instead
    /// ("bedside lamp" -> "bedside light"); none for a name that is a kind word alone.
    static func kindVariants(of name: String, kindWords: [String]) -> [String] {
        let words = name.split(separator: " ")
        guard words.count > 1, let last = words.last, kindWords.contains(String(last)) else { return [] }
        let head = words.dropLast().joined(separator: " ")
        return kindWords.filter { $0 != last }.map { "\(head) \($0)" }
    }

    static func singulars(of word: String) -> [String] {
        var out: [String] = []
        if word.hasSuffix("ies") { out.append(String(word.dropLast(3)) + "y") }
        if word.hasSuffix("es") { out.append(String(word.dropLast(2))) }
        if word.hasSuffix("s") { out.append(String(word.dropLast())) }
        return out
    }

    /// The mode a spoken name refers to.
    public func mode(matching text: String) -> Mode? {
        let t = Self.normalize(text).replacingOccurrences(of: " mode", with: "")
        return modes.first { $0.id.rawValue.lowercased() == t || $0.names.contains { Self.normalize($0) == t } }
    }

    /// The routine a spoken id or shortcut phrase refers to (case and punctuation ignored).
    public func routine(matching text: String) -> Routine? {
        let t = Self.phrase(text)
        return routines.first { $0.id.rawValue.lowercased() == t || Self.phrase($0.shortcut) == t }
    }

    static func phrase(_ text: String) -> String {
        normalize(String(text.unicodeScalars.filter { !CharacterSet.punctuationCharacters.contains($0) }))
    }

    /// How people call the cover a winding belongs to: its label without "up"/"down"
    /// ("living room shutter up" -> "living room shutter").
    public func coverLabel(for device: Device) -> String {
        let words = label(for: device).split(separator: " ").filter { $0 != "up" && $0 != "down" }
        return words.isEmpty ? label(for: device) : words.joined(separator: " ")
    }

    /// How people call a device, with its room when that helps: "bedroom bedside lamp", "garage door".
    public func label(for device: Device) -> String {
        let name = device.names.first ?? device.kind.rawValue
        guard let room = room(id: device.room) else { return name }
        let roomName = room.name.lowercased(), lowered = name.lowercased()
        return lowered.containsUTF8(roomName) || lowered.containsUTF8(room.id.rawValue) ? name : "\(roomName) \(name)"
    }
}

extension String {
    /// Whether `other` occurs in this string, compared as UTF-8 bytes: for short names (a label
    /// is made for every device an intent resolves to), where Foundation's `contains` and the
    /// standard library's `firstRange(of:)` cost more than the whole resolution.
    func containsUTF8(_ other: String) -> Bool {
        var text = self, pattern = other
        return text.withUTF8 { a in
            pattern.withUTF8 { b in
                guard !b.isEmpty else { return false }  // as Foundation's `contains`
                guard b.count <= a.count else { return false }
                for start in 0...(a.count - b.count) where a[start] == b[0] {
                    var i = 1
                    while i < b.count && a[start + i] == b[i] { i += 1 }
                    if i == b.count { return true }
                }
                return false
            }
        }
    }
}
