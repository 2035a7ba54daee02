import Foundation
import Testing
import HouseCore

@Suite struct IdentifierTests {
    func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func encodesAsItsBareString() throws {
        let id: DeviceID = "bedroom-lamp"
        #expect(try json(id) == #""bedroom-lamp""#)
        #expect(try json([id, "hall-light"]) == #"["bedroom-lamp","hall-light"]"#)
        #expect(try JSONDecoder().decode(DeviceID.self, from: Data(#""bedroom-lamp""#.utf8)) == id)
    }

    @Test func aDictionaryKeyedByIdsIsStillAnObject() throws {
        let modes: [RoomID: ModeID] = ["kitchen": "night", "bedroom": "away"]
        #expect(try json(modes) == #"{"bedroom":"away","kitchen":"night"}"#)
        let back = try JSONDecoder().decode([RoomID: ModeID].self, from: Data(#"{"bedroom":"away","kitchen":"night"}"#.utf8))
        #expect(back == modes)
    }

    @Test func theModeSnapshotKeepsItsFormat() throws {
        let at = Date(timeIntervalSince1970: 0)
        let snapshot = ModeSnapshot(timelines: [
            "bedroom": ModeTimeline(base: "night", layers: [.init(mode: "movie", since: at, until: at)]),
        ])
        let text = try json(snapshot)
        #expect(text == #"{"timelines":{"bedroom":{"base":"night","layers":[{"mode":"movie","since":-978307200,"until":-978307200}]}}}"#)
        #expect(try JSONDecoder().decode(ModeSnapshot.self, from: Data(text.utf8)) == snapshot)
    }

    @Test func stringConversionsAndOrder() {
        let id = RoomID("living-room")
        #expect(id.rawValue == "living-room")
        #expect("\(id)" == "living-room")
        #expect(RoomID(id.description) == id)
        #expect(RoomID(rawValue: "a") < RoomID("b"))
        #expect([RoomID("b"), "a"].sorted() == ["a", "b"])
        #expect([RoomID("kitchen"), "hall"].joined(separator: ", ") == "kitchen, hall")
        #expect(PeerRelayCommand(device: "garage-door", state: .on).json == #"{"device":"garage-door","state":"ON"}"#)
    }
}
