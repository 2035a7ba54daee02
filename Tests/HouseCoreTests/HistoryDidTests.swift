import Foundation
import HouseCore
import HouseTesting
import Testing

/// The history keeps what each command carried out did, in the habit events' words: what the
/// household's habits are found from.
@Suite struct HistoryDidTests {
    static func did(_ intent: HouseIntent, _ h: HouseHarness, source: IntentSource = .cli) async -> [String?] {
        let effects = await h.engine.perform(.intent(intent, source: source, answers: IntentAnswers(confirmed: true), requestID: nil)).effects
        return effects.records.compactMap { if case .history(let r) = $0 { r.did } else { nil } }
    }

    @Test func devicesModesAndRoutinesAreRecordedAsHabitEvents() async throws {
        let h = try HouseHarness()
        #expect(await Self.did(.control(HouseControlIntent(room: "kitchen", action: .on, device: "light")), h)
                == [#"[{"action":"on","device":"kitchen-light"}]"#])
        // A toggle is what it left; several devices are each an event.
        #expect(await Self.did(.control(HouseControlIntent(room: "kitchen", action: .toggle, device: "light")), h)
                == [#"[{"action":"off","device":"kitchen-light"}]"#])
        let lamps = await Self.did(.control(HouseControlIntent(room: "bedroom", action: .on, device: "lamp", plural: true)), h)
        #expect(lamps == [#"[{"action":"on","device":"bedroom-bedside-lamp"},{"action":"on","device":"bedroom-ceiling-light"}]"#])
        #expect(await Self.did(.control(HouseControlIntent(room: "living-room", action: .open, device: "shutter")), h)
                == [#"[{"action":"open","device":"living-shutter"}]"#])
        #expect(await Self.did(.setMode(SetHouseModeIntent(mode: "night")), h) == [#"[{"mode":"night"}]"#])
        // A question, a refusal or a query did nothing.
        #expect(await Self.did(.query(QueryHouseStatusIntent(queryType: .mode)), h) == [nil])
        #expect(await Self.did(.control(HouseControlIntent(room: "garage", action: .on, device: "garage door")), h, source: .mqtt) == [nil])
    }
}
