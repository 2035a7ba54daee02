import Foundation
import HouseCore
import HouseTesting
import Testing

/// What the house says is what it knows: a refused mode is an event like a refused device, a
/// device that never reported is `unknown`, and a Tasmota plug is asked for its state.
@Suite struct TruthfulStatesTests {
    /// The records a command put on `events`, decoded.
    static func events(_ effects: Effects) throws -> [[String: Any]] {
        try effects.messages.filter { $0.topic == "house/events" }
            .map { try #require(JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any]) }
    }

    static func setMode(_ mode: String, _ h: HouseHarness) async -> (reply: IntentReply, effects: Effects) {
        await h.engine.perform(.intent(.setMode(SetHouseModeIntent(mode: mode)), source: .mqtt, answers: .none, requestID: nil))
    }

    @Test func aModeRefusedFromMQTTIsAnEventWithItsReason() async throws {
        let h = try HouseHarness()
        // `away` needs a yes, which MQTT (Home Assistant's select) may not give.
        let away = await Self.setMode("away", h)
        #expect(away.reply.status == .refused)
        let refusal = try #require(try Self.events(away.effects).first)
        #expect(refusal["outcome"] as? String == "refused")
        #expect((refusal["parameters"] as? [String: String])?["mode"] == "away")
        #expect(refusal["source"] as? String == "mqtt")
        #expect(refusal["dialog"] as? String == away.reply.dialog)
        // `mixed` is no mode: refused as well, and said so.
        let mixed = await Self.setMode("mixed", h)
        #expect(mixed.reply.status != .done)
        #expect(try Self.events(mixed.effects).first?["outcome"] as? String == "refused")
        // A mode carried out is a donation, not a refusal.
        let night = await Self.setMode("night", h)
        #expect(try Self.events(night.effects).map { $0["outcome"] as? String } == ["success"])
    }

    @Test func aDeviceThatNeverReportedIsUnknownUntilItDoes() async throws {
        let h = try HouseHarness()
        let query = HouseIntent.query(QueryHouseStatusIntent(queryType: .deviceStates, room: "office"))
        func plug() async -> HouseResponse.DeviceStatus? {
            await h.engine.process(query, source: .cli).response?.devices.first { $0.device == "office-plug" }
        }
        #expect(await plug()?.value == "unknown")
        #expect(await plug()?.state == nil, "not OFF beside unknown")
        let json = String(decoding: try JSONEncoder().encode(try #require(await plug())), as: UTF8.self)
        #expect(!json.contains("\"state\""), "the JSON has no state: \(json)")
        let page = await h.engine.overview().rooms.flatMap(\.devices).first { $0.id == "office-plug" }
        #expect(page?.state == nil && page?.value == "unknown")
        let asked = await h.engine.process(.query(QueryHouseStatusIntent(queryType: .deviceStates, room: "office", device: "desk plug")), source: .cli)
        #expect(asked.dialog == "I don't know whether the office desk plug is on: it has not reported its state since I started.")
        // A relay this engine drives is never unknown.
        #expect(await h.engine.process(query, source: .cli).response?.devices.first { $0.device == "office-fan" }?.value == nil)
        _ = await h.engine.perform(.stateReport(device: "office-plug", state: .on, retained: true, mirror: false))
        #expect(await plug()?.value == nil)
        #expect(await plug()?.state == .on)
    }

    @Test func aTasmotaPlugIsAskedForItsStateAfterAConnectUntilItAnswers() async throws {
        let h = try HouseHarness()
        // The example plug's command topic is cmnd/office-plug/POWER: Tasmota answers "" with its state.
        let first = await h.engine.perform(.republish).effects.messages.filter { $0.topic == "cmnd/office-plug/POWER" }
        #expect(first.map(\.string) == [""])
        #expect(first.first?.retain == false)
        _ = await h.engine.perform(.stateReport(device: "office-plug", state: .off, retained: false, mirror: false))
        let again = await h.engine.perform(.republish).effects.messages.filter { $0.topic == "cmnd/office-plug/POWER" }
        #expect(again.isEmpty, "known now: not asked again")
    }

    @Test func aNodeThatStartsCoordinatingAsksTheTasmotaPlugItNowServes() async throws {
        let h = try HouseHarness()
        // A standby node connected without asking (it did not act); taking over, it asks.
        let standby = await h.engine.perform(.republish, acting: false).effects.messages.filter { $0.topic == "cmnd/office-plug/POWER" }
        #expect(standby.isEmpty, "a node that does not coordinate asks nothing")
        let takeover = await h.engine.perform(.coordinationStarted(term: 2, modes: nil), acting: false).effects.messages
            .filter { $0.topic == "cmnd/office-plug/POWER" }
        #expect(takeover.map(\.string) == [""])
    }

    @Test func aNodeThatConnectsAndStartsCoordinatingAsksOnce() async throws {
        let h = try HouseHarness()
        let connect = await h.engine.perform(.republish).effects.messages.filter { $0.topic == "cmnd/office-plug/POWER" }
        #expect(connect.map(\.string) == [""])
        let takeover = await h.engine.perform(.coordinationStarted(term: 2, modes: nil)).effects.messages
            .filter { $0.topic == "cmnd/office-plug/POWER" }
        #expect(takeover.isEmpty, "asked at the connect already")
        // The next connection asks again: the answer may have been lost with the old one.
        let reconnect = await h.engine.perform(.republish).effects.messages.filter { $0.topic == "cmnd/office-plug/POWER" }
        #expect(reconnect.map(\.string) == [""])
    }
}
