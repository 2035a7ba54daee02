import Foundation
import Testing
@testable import HouseCore
import HouseTesting

/// The default phrase set compiled against the sample house, shared by the phrase tests.
enum PhraseFixture {
    static let phrasesURL = URL(fileURLWithPath: PhraseFixtures.phrasesPath)

    static var matcher: PhraseMatcher { PhraseFixtures.matcher }

    /// The best intents of `text`, one per command.
    static func intents(_ text: String) -> [HouseIntent] {
        matcher.interpret(text).intents
    }
}

@Suite("The issue's example sentences")
struct PhraseExamplesTests {
    @Test func turnOffTheLightsInTheBedroom() {
        #expect(PhraseFixture.intents("turn off the lights in the bedroom") == [
            .control(HouseControlIntent(room: "Bedroom", action: .off, device: "light", plural: true)),
        ])
    }

    @Test func bedroomLightsOff() {
        #expect(PhraseFixture.intents("bedroom lights off") == [
            .control(HouseControlIntent(room: "Bedroom", action: .off, device: "light", plural: true)),
        ])
    }

    @Test func goodMorningHouse() {
        #expect(PhraseFixture.intents("good morning house") == [.runRoutine(RunRoutineIntent(routine: "Good morning house"))])
    }

    @Test func isTheGarageDoorOpen() {
        #expect(PhraseFixture.intents("is the garage door open?") == [
            .query(QueryHouseStatusIntent(queryType: .deviceStates, device: "garage door")),
        ])
    }

    @Test func wereOutForTwoHours() {
        #expect(PhraseFixture.intents("we're out for two hours") == [
            .setMode(SetHouseModeIntent(mode: "away", duration: .seconds(7200))),
        ])
    }

    @Test func movieModeAndKitchenLight() {
        #expect(PhraseFixture.intents("set the living room to movie mode and turn off the kitchen light") == [
            .setMode(SetHouseModeIntent(mode: "movie", rooms: ["Living Room"])),
            .control(HouseControlIntent(room: "Kitchen", action: .off, device: "light")),
        ])
    }
}
