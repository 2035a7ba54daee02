import Foundation
import Testing
@testable import HouseCore
import HouseTesting

@Suite("Community grammar: home-assistant-intents read into our matcher")
struct CommunityGrammarTests {
    /// A language file in the package's shape, small enough to read at a glance.
    static let json = #"""
    {
      "language": "en",
      "skip_words": ["please", "can you"],
      "expansion_rules": {
        "turn": "(turn|switch)",
        "name": "[the] {name}",
        "area": "[the] {area}",
        "the": "(the|my)",
        "open": "(open|raise)",
        "close": "(close|lower)"
      },
      "lists": {
        "cover_classes": {"values": [{"in": "blind[s]", "out": "blind"}, {"in": "garage door[s]", "out": "garage"}]},
        "brightness": {"range": {"type": "percentage", "from": 0, "to": 100}},
        "message": {"wildcard": true}
      },
      "intents": {
        "HassTurnOn": {"data": [
          {"sentences": ["<turn> on <name>"], "requires_context": {"domain": ["light", "switch"]}},
          {"sentences": ["<turn> on [<the>] lights in <area>"], "slots": {"domain": "light"}},
          {"sentences": ["<turn> on [<the>] light[s] [here]"], "slots": {"domain": "light"}, "requires_context": {"area": {"slot": true}}},
          {"sentences": ["open [<the>] {cover_classes:device_class} in <area>"], "slots": {"domain": "cover"}},
          {"sentences": ["activate <name>"], "requires_context": {"domain": "scene"}},
          {"sentences": ["[<the>] <name>"], "requires_context": {"domain": ["light", "switch"]}},
          {"sentences": ["[activate] <name> [scene]"], "requires_context": {"domain": ["scene"]}},
          {"sentences": ["activate <name> in <area>"], "requires_context": {"domain": ["scene"]}},
          {"sentences": ["<open> <name>"], "requires_context": {"domain": ["cover", "valve"]}}
        ]},
        "HassLightSet": {"data": [{"sentences": ["set <name> brightness to {brightness}[%]"], "requires_context": {"domain": "light"}}]},
        "HassBroadcast": {"data": [{"sentences": ["broadcast {message}"]}]},
        "HassTurnOff": {"data": [
          {"sentences": ["shout {message} and turn off <name>"]},
          {"sentences": ["<close> <name>"], "requires_context": {"domain": ["cover", "valve"]}},
          {"sentences": ["<turn> off all [the] lights"], "slots": {"domain": "light"}},
          {"sentences": ["<turn> off [the] lights [here]"], "slots": {"domain": "light"}, "requires_context": {"area": {"slot": true}}},
          {"sentences": ["<name> off", "[the] <name>"]}
        ]}
      }
    }
    """#

    static func matcher() throws -> PhraseMatcher {
        let grammar = try CommunityGrammar.parse(json: Data(json.utf8), source: "en.json")
        return try PhraseMatcher(phraseSet: grammar.phraseSet, house: try HouseFixtures.exampleConfiguration())
    }

    @Test func readsOnlyTheIntentsOfARelayHouseWithRenamedRulesAndLists() throws {
        let grammar = try CommunityGrammar.parse(json: Data(Self.json.utf8), source: "en.json")
        #expect(grammar.language == "en")
        #expect(Set(grammar.phraseSet.groups.map(\.intent)) == ["HassTurnOn", "HassTurnOff", "HassLightSet"])
        #expect(grammar.phraseSet.groups.allSatisfy { $0.fromGrammar })
        #expect(grammar.phraseSet.skipWords == ["please", "can you"])
        #expect(grammar.phraseSet.expansionRules["ha.turn"] == "(turn|switch)")
        // A rule that says {name} has a copy for each set of domains a template asks for.
        #expect(grammar.phraseSet.expansionRules["ha.name@light+switch"] == "[the] {ha.name@light+switch:name}")
        #expect(grammar.phraseSet.lists["ha.cover_classes"]?.values.map(\.spoken) == ["blind", "blinds", "garage door", "garage doors"])
        #expect(grammar.phraseSet.lists["ha.brightness"]?.values.count == 101)
        #expect(grammar.phraseSet.lists["ha.message"] == nil)
    }

    @Test func aTemplateNeedingAWildcardIsLeftOutNotAnError() throws {
        let matcher = try Self.matcher()
        #expect(matcher.automaton.skipped == ["shout {ha.message:message} and turn off <ha.name>"])
        #expect(matcher.bestMatch("shout hello and turn off the lamp") == nil)
    }

    @Test func namesAreLimitedToTheDomainsATemplateRequires() throws {
        let matcher = try Self.matcher()
        // The bathroom heater is a switch, the office fan a fan: only lights and switches here.
        #expect(matcher.bestCandidate("switch on the bedside lamp")?.intent == .control(HouseControlIntent(action: .on, device: "bedside lamp")))
        #expect(matcher.bestCandidate("turn on towel heater")?.intentName == "HassTurnOn")
        #expect(matcher.bestCandidate("turn on desk fan") == nil)
        #expect(matcher.bestCandidate("set bedside lamp brightness to 40%")?.intent
            == .control(HouseControlIntent(device: "bedside lamp", capability: .brightness)))
    }

    @Test func areasFloorsDeviceClassesScenesAndTheSpeakersRoom() throws {
        let matcher = try Self.matcher()
        #expect(matcher.bestCandidate("turn on the lights in the kitchen")?.intent
            == .control(HouseControlIntent(room: "Kitchen", action: .on, device: "light", plural: true)))
        // hassil's "area from context": our speaker's room, the resolver's to fill.
        let here = try #require(matcher.bestCandidate("please turn on my lights here"))
        #expect(here.slots["here"] == "true")
        #expect(here.intent == .control(HouseControlIntent(action: .on, device: "light", plural: true)))
        #expect(matcher.bestCandidate("open the blinds in the lounge")?.intent
            == .control(HouseControlIntent(room: "Living room", action: .open, device: "blind", plural: true)))
        #expect(matcher.bestCandidate("open the garage doors in the garage")?.intent
            == .control(HouseControlIntent(room: "Garage", action: .open, device: "garage door", plural: true)))
        #expect(matcher.bestCandidate("activate movie")?.intent == .setMode(SetHouseModeIntent(mode: "movie")))
    }

    @Test func ourOwnTemplatesWinOverTheGrammar() throws {
        let ours = PhraseSet(groups: [PhraseTemplateGroup(intent: "HouseControl", sentences: ["turn on the lights in {room}"],
                                                          slots: ["action": "on", "device": "lamp", "plural": "true"])])
        let grammar = try CommunityGrammar.parse(json: Data(Self.json.utf8), source: "en.json")
        let matcher = try PhraseMatcher(phraseSet: ours.merging(grammar.phraseSet), house: try HouseFixtures.exampleConfiguration())
        let best = try #require(matcher.bestCandidate("turn on the lights in kitchen"))
        #expect(!best.fromGrammar)
        #expect(best.intentName == "HouseControl")
        #expect(matcher.bestCandidate("switch on the lights in kitchen")?.fromGrammar == true)
    }

    @Test func aDevicesNameAloneSwitchesNothingAScenesSetsItsMode() throws {
        let matcher = try Self.matcher()
        #expect(matcher.bestCandidate("the towel heater") == nil)
        #expect(matcher.bestCandidate("the bedside lamp") == nil)
        #expect(matcher.bestCandidate("movie scene")?.intent == .setMode(SetHouseModeIntent(mode: "movie")))
        // Without a domain, too: only "off" said, never the name alone.
        #expect(matcher.bestCandidate("the towel heater") == nil)
        #expect(matcher.bestCandidate("towel heater off")?.intent == .control(HouseControlIntent(action: .off, device: "towel heater")))
    }

    @Test func aSceneSaidWithARoomSetsTheModeThereOnly() throws {
        let matcher = try Self.matcher()
        #expect(matcher.bestCandidate("activate night in the office")?.intent
            == .setMode(SetHouseModeIntent(mode: "night", rooms: ["Office"])))
    }

    @Test func aDomainWithNoPlaceIsTheWholeHouseWithTheSpeakersRoomItIsHere() throws {
        let matcher = try Self.matcher()
        #expect(matcher.bestCandidate("turn off all the lights")?.intent
            == .control(HouseControlIntent(action: .off, device: "light", plural: true, wholeHouse: true)))
        #expect(matcher.bestCandidate("turn off the lights here")?.intent
            == .control(HouseControlIntent(action: .off, device: "light", plural: true)))
    }

    @Test func aCoverNamedIsOpenedOrClosedNeverStopped() throws {
        let matcher = try Self.matcher()
        #expect(matcher.bestCandidate("raise shutter")?.intent == .control(HouseControlIntent(action: .open, device: "shutter")))
        #expect(matcher.bestCandidate("lower shutter")?.intent == .control(HouseControlIntent(action: .close, device: "shutter")))
    }

    @Test func aFileThatIsNotTheGrammarSaysSo() {
        #expect(throws: PhraseError.self) { try CommunityGrammar.parse(json: Data("{}".utf8), source: "x.json") }
        #expect(throws: PhraseError.self) { try CommunityGrammar.parse(json: Data("not json".utf8), source: "x.json") }
    }
}
