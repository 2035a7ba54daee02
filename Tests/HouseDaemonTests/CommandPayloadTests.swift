import Foundation
import Testing
@testable import HouseDaemon

@Suite struct CommandPayloadTests {
    let topic = "house/bedroom/bedroom-light/set"

    @Test func plainAndJSONDeviceCommands() throws {
        #expect(try CommandPayloadParser.deviceCommand(Array("ON".utf8), topic: topic).action == .on)
        #expect(try CommandPayloadParser.deviceCommand(Array(" off\n".utf8), topic: topic).action == .off)
        #expect(try CommandPayloadParser.deviceCommand(Array("toggle".utf8), topic: topic).action == .toggle)
        // Whitespace and line breaks around it, Unicode's too (a no-break space, a line separator).
        #expect(try CommandPayloadParser.deviceCommand(Array("\t\r\n\u{A0}On\u{2028} ".utf8), topic: topic).action == .on)
        #expect(throws: DaemonError.self) { try CommandPayloadParser.deviceCommand(Array("O N".utf8), topic: topic) }
        #expect(throws: DaemonError.self) { try CommandPayloadParser.deviceCommand(Array(" \n ".utf8), topic: topic) }
        let c = try CommandPayloadParser.deviceCommand(Array(#"{"state":"ON","id":"a1","reply_to":"me/x"}"#.utf8), topic: topic)
        #expect(c == DeviceSetCommand(action: .on, id: "a1", replyTo: "me/x"))
    }

    @Test func coverCommands() throws {
        let cover = "house/living-room/living-shutter/set"
        #expect(try CommandPayloadParser.deviceCommand(Array("OPEN".utf8), topic: cover).action == .open)
        #expect(try CommandPayloadParser.deviceCommand(Array("close".utf8), topic: cover).action == .close)
        #expect(try CommandPayloadParser.deviceCommand(Array("STOP".utf8), topic: cover).action == .stop)
        #expect(try CommandPayloadParser.deviceCommand(Array(" 40 ".utf8), topic: cover) == DeviceSetCommand(action: .position, position: 40))
        #expect(try CommandPayloadParser.deviceCommand(Array(#"{"position":0,"id":"p"}"#.utf8), topic: cover)
                == DeviceSetCommand(action: .position, position: 0, id: "p"))
        let positionSet = "house/living-room/living-shutter/position/set"
        #expect(try CommandPayloadParser.positionCommand(Array("100".utf8), topic: positionSet).position == 100)
        for (payload, reason) in [("101", "whole number from 0 (closed) to 100 (open), got \"101\""), ("-1", "got \"-1\""),
                                  ("40.5", "whole number"), (#"{"position":"40"}"#, "got \"40\""), ("nan", "got \"nan\"")] {
            #expect("\(payload)") {
                _ = try CommandPayloadParser.deviceCommand(Array(payload.utf8), topic: cover)
            } throws: { "\($0)".contains(reason) }
        }
        #expect {
            _ = try CommandPayloadParser.positionCommand(Array("OPEN".utf8), topic: positionSet)
        } throws: { "\($0)".contains("expected a position from 0 (closed) to 100 (open)") }
    }

    @Test(arguments: [
        ("", "empty payload"),
        ("BRIGHT", "expected ON, OFF, TOGGLE"),
        (#"{"state":1}"#, "\"state\" must be ON, OFF, TOGGLE, OPEN, CLOSE or STOP"),
        (#"{"id":"x"}"#, "needs a \"state\" field"),
        (#"{"state":"ON""#, "invalid JSON"),
        (#"{"state":"ON","reply_to":"a/#"}"#, "without wildcards"),
        ("[1,2]", "expected ON, OFF"),
    ])
    func malformedDeviceCommandsSayWhy(payload: String, reason: String) {
        #expect {
            _ = try CommandPayloadParser.deviceCommand(Array(payload.utf8), topic: topic)
        } throws: { error in
            guard case .malformedPayload(let t, let r) = error as? DaemonError else { return false }
            return t == topic && r.contains(reason)
        }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: DaemonError.malformedPayload(topic: topic, reason: "payload is not valid UTF-8")) {
            _ = try CommandPayloadParser.deviceCommand([0xFF, 0xFE, 0x4F], topic: topic)
        }
    }

    @Test func modeCommands() throws {
        #expect(try CommandPayloadParser.modeCommand(Array("night".utf8), topic: "house/mode/set").mode == "night")
        let m = try CommandPayloadParser.modeCommand(Array(#"{"mode":"away","duration":"2h","rooms":["kitchen"]}"#.utf8), topic: "house/mode/set")
        #expect(m == ModeSetCommand(mode: "away", duration: .seconds(7200), rooms: ["kitchen"]))
        #expect(throws: DaemonError.self) {
            _ = try CommandPayloadParser.modeCommand(Array(#"{"mode":"away","duration":"soon"}"#.utf8), topic: "house/mode/set")
        }
    }

    @Test func intentRequests() throws {
        let t = try CommandPayloadParser.intentRequest(Array(#"{"id":"r1","text":"good night house"}"#.utf8), topic: "house/intent/request")
        #expect(t.body == .text("good night house"))
        #expect(t.id == "r1")
        let c = try CommandPayloadParser.intentRequest(
            Array(#"{"id":"r2","intent":"control","room":"bedroom","device":"light","action":"off","reply_to":"x/y"}"#.utf8),
            topic: "house/intent/request")
        #expect(c.body == .intent(.control(HouseControlIntent(room: "bedroom", action: .off, device: "light"))))
        #expect(c.replyTo == "x/y")
        let q = try CommandPayloadParser.intentRequest(
            Array(#"{"id":"r3","intent":"query","query":"energy","time_range":"last-6-hours"}"#.utf8), topic: "t")
        #expect(q.body == .intent(.query(QueryHouseStatusIntent(queryType: .energy, timeRange: .lastHours(6)))))
        #expect(throws: DaemonError.self) {
            _ = try CommandPayloadParser.intentRequest(Array(#"{"text":"hi"}"#.utf8), topic: "t")
        }
        #expect(throws: DaemonError.self) {
            _ = try CommandPayloadParser.intentRequest(Array(#"{"id":"a/b","text":"hi"}"#.utf8), topic: "t")
        }
    }

    @Test func contextRoomAndTheNewControlFieldsRoundTrip() throws {
        let request = IntentRequest(id: "ctx", body: .intent(.control(HouseControlIntent(
            action: .off, device: "light", plural: true, wholeHouse: true, capability: .brightness))),
            contextRoom: "kitchen")
        let payload = IntentRequestEncoder.payload(id: "ctx", body: request.body, answers: request.intentAnswers)
        let parsed = try CommandPayloadParser.intentRequest(payload, topic: "house/intent/request")
        #expect(parsed.body == request.body)
        #expect(parsed.intentAnswers == IntentAnswers(contextRoom: "kitchen"))
        #expect(throws: DaemonError.self) {
            _ = try CommandPayloadParser.intentRequest(Array(#"{"id":"x","intent":"control","capability":"volume"}"#.utf8), topic: "t")
        }
        #expect(throws: DaemonError.self) {
            _ = try CommandPayloadParser.intentRequest(Array(#"{"id":"x","text":"lights off","context_room":7}"#.utf8), topic: "t")
        }
    }

    @Test func topicLayoutParsesSetTopics() {
        let layout = TopicLayout(base: "house")
        #expect(layout.parseDeviceSet("house/bedroom/bedroom-light/set")! == ("bedroom", "bedroom-light"))
        #expect(layout.parseDeviceSet("house/mode/x/set") == nil)
        #expect(layout.parseDeviceSet("house/bedroom/bedroom-light/state") == nil)
        #expect(TopicLayout(base: "a/b").parseDeviceSet("a/b/r/d/set")! == ("r", "d"))
    }
}
