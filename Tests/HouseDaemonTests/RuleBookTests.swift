import Foundation
import Testing
@testable import HouseDaemon

@Suite struct RuleBookTests {
    let book = RuleBook(rules: [
        Rule(id: "button", trigger: .mqtt(topic: "zigbee2mqtt/+/action", payload: "single", jsonField: nil, jsonValue: nil),
             intent: .control(room: nil, device: "hall-light", action: .toggle)),
        Rule(id: "remote", trigger: .mqtt(topic: "zigbee2mqtt/remote", payload: nil, jsonField: "action", jsonValue: "double"),
             intent: .mode("movie", duration: nil, rooms: [])),
        Rule(id: "door", trigger: .deviceState(device: "garage-door", state: .on), intent: .control(room: nil, device: "garage-light", action: .on)),
        Rule(id: "night", trigger: .mode("night"), intent: .control(room: nil, device: "hall-light", action: .off)),
    ])

    @Test func triggersMatchTopicsPayloadsJSONFieldsStatesAndModes() {
        #expect(book.matching(.mqtt(topic: "zigbee2mqtt/hall/action", payload: Array("single".utf8))).map(\.id) == ["button"])
        #expect(book.matching(.mqtt(topic: "zigbee2mqtt/hall/action", payload: Array("double".utf8))).isEmpty)
        #expect(book.matching(.mqtt(topic: "zigbee2mqtt/remote", payload: Array(#"{"action":"double"}"#.utf8))).map(\.id) == ["remote"])
        #expect(book.matching(.mqtt(topic: "zigbee2mqtt/remote", payload: Array(#"{"action":"single"}"#.utf8))).isEmpty)
        #expect(book.matching(.mqtt(topic: "zigbee2mqtt/remote", payload: Array("not json".utf8))).isEmpty)
        #expect(book.matching(.deviceState("garage-door", .on)).map(\.id) == ["door"])
        #expect(book.matching(.deviceState("garage-door", .off)).isEmpty)
        #expect(book.matching(.mode("night")).map(\.id) == ["night"])
        #expect(book.topicFilters == ["zigbee2mqtt/+/action", "zigbee2mqtt/remote"])
        #expect(book.stateWatchedDevices == ["garage-door"], "only a device-state trigger watches a device's state")
    }

    @Test func topicFiltersFollowMQTT() {
        #expect(RuleBook.topic("a/b/c", matches: "a/#"))
        #expect(RuleBook.topic("a", matches: "a/#"))
        #expect(RuleBook.topic("a/b", matches: "a/+"))
        #expect(!RuleBook.topic("a/b/c", matches: "a/+"))
        #expect(!RuleBook.topic("$SYS/x", matches: "#"))
        #expect(!RuleBook.topic("$SYS/x", matches: "+/x"))
    }

    @Test func aRuleThatFiresInALoopIsStopped() {
        var book = self.book
        let t0 = WallInstant(Date(timeIntervalSince1970: 1_800_000_000))
        for i in 0..<RuleBook.burstLimit {
            #expect(book.admit("button", at: t0.advanced(by: .seconds(i))) == .allowed)
        }
        #expect(book.admit("button", at: t0.advanced(by: .seconds(11))) == .stoppedNow)
        #expect(book.admit("button", at: t0.advanced(by: .seconds(3600))) == .stopped)
        // Other rules are not affected, and slow firing is fine.
        for i in 0..<30 {
            #expect(book.admit("door", at: t0.advanced(by: .seconds(i * 10))) == .allowed)
        }
    }
}
