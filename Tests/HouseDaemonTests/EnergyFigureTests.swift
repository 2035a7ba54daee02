import Foundation
import HouseCore
import HouseMQTT
import HouseTesting
import Testing

/// The house's energy figure after switches: published at once, then at most once a second,
/// and a move within that second is published after it (none is lost).
@Suite(.timeLimit(.minutes(1)))
struct EnergyFigureTests {
    static func heater(_ action: HouseAction) -> HouseIntent {
        .control(HouseControlIntent(room: "bathroom", action: action, device: "heater"))
    }

    @Test func aSwitchPublishesTheFigureAtOnceAndAMoveWithinTheSecondAfterIt() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_795_521_600))  // 2026-11-24 12:00:00 UTC
        try await withController(clock: clock) { f in
            let mqtt = try await f.mqttClient()
            let figures = try await mqtt.subscribe(to: "house/energy/state", qos: .atLeastOnce)
            #expect(try await figures.next("the retained figure").string == "0.000")
            let yes = IntentAnswers(confirmed: true)
            #expect(try await f.client().send(.intent(Self.heater(.on)), answers: yes).status == .done)
            // 9 s of the 2 kW heater (no minute tick before 12:01): 0.005 kWh once it switches off.
            clock.advance(by: .seconds(9))
            #expect(try await f.client().send(.intent(Self.heater(.off)), answers: yes).status == .done)
            #expect(try await figures.next("the figure after the switch").string == "0.005")
            // On again within the second that follows: its figure waits for that second to end,
            // and then comes without another command (5.4 s more: 0.008 kWh).
            #expect(try await f.client().send(.intent(Self.heater(.on)), answers: yes).status == .done)
            clock.advance(by: .milliseconds(5_400))
            #expect(try await figures.next("the figure after the second").string == "0.008")
            await mqtt.disconnect()
        }
    }
}
