import Foundation
import HouseCore

/// The phrase tests' and the phrase benchmark's house: rooms on two floors, devices with several
/// names (one named like a room), modes and routines.
public enum PhraseFixtures {
    /// A small example house (rooms, devices, modes, routines).
    public static let sampleHouse = HouseConfiguration(
        house: HouseInfo(name: "Home", timeZone: HouseZone(identifier: "Europe/London") ?? .utc, latitude: 51.5, longitude: -0.12),
        floors: [
            Floor(id: "ground", name: "Ground floor", aliases: ["downstairs"]),
            Floor(id: "first", name: "First floor", aliases: ["upstairs"]),
        ],
        rooms: [
            Room(id: "bedroom", name: "Bedroom", aliases: ["master bedroom"], floor: "first"),
            Room(id: "kitchen", name: "Kitchen", floor: "ground"),
            Room(id: "living-room", name: "Living Room", aliases: ["lounge"], floor: "ground"),
            Room(id: "garage", name: "Garage"),
            Room(id: "hall", name: "Hall", aliases: ["hallway"], floor: "ground"),
            Room(id: "office", name: "Office", aliases: ["study"], floor: "first"),
        ],
        devices: [
            Device(id: "bedroom-light", room: "bedroom", kind: .light, names: ["light", "ceiling light"], watts: 40),
            Device(id: "bedroom-lamp", room: "bedroom", kind: .light, names: ["lamp", "bedside lamp"], watts: 10),
            Device(id: "kitchen-light", room: "kitchen", kind: .light, names: ["light"], watts: 60),
            Device(id: "kettle", room: "kitchen", kind: .plug, names: ["kettle"], watts: 2000),
            Device(id: "living-room-light", room: "living-room", kind: .light, names: ["light", "big light"], watts: 60),
            Device(id: "tv", room: "living-room", kind: .plug, names: ["tv", "television"], watts: 120),
            Device(id: "garage-door", room: "garage", kind: .door, names: ["garage door"], confirm: true),
            Device(id: "hall-light", room: "hall", kind: .light, names: ["light"], watts: 20),
            Device(id: "heater", room: "office", kind: .heater, names: ["heater", "radiator"], watts: 1500, confirm: true),
            // a device named like a room: "turn off the office" is a real ambiguity
            Device(id: "office-fan", room: "living-room", kind: .fan, names: ["office", "fan"], watts: 30),
        ],
        modes: [
            Mode(id: "night", names: ["night", "bedtime"]),
            Mode(id: "away", names: ["away"]),
            Mode(id: "home", names: ["home"]),
            Mode(id: "movie", names: ["movie", "cinema"], rooms: ["living-room"]),
            Mode(id: "morning", names: ["morning"]),
        ],
        routines: [
            Routine(id: "morning", shortcut: "Good morning house", intent: .mode("morning", duration: nil, rooms: [])),
            Routine(id: "night", shortcut: "Good night house", intent: .mode("night", duration: nil, rooms: [])),
        ]
    )

    /// `config/phrases.yaml`, the default phrase templates.
    public static var phrasesPath: String { HouseFixtures.repositoryRoot + "/config/phrases.yaml" }

    /// The default phrase templates compiled against `sampleHouse`.
    public static let matcher: PhraseMatcher = {
        do {
            let set = try PhraseSet.load(contentsOf: URL(fileURLWithPath: phrasesPath))
            return try PhraseMatcher(phraseSet: set, house: sampleHouse)
        } catch {
            fatalError("default phrases do not compile: \(error)")
        }
    }()
}
