import Testing
import HouseCore
import HouseTesting

@Suite struct IntentResolverTests {
    let config: HouseConfiguration
    let resolver: IntentResolver
    init() throws {
        config = try HouseFixtures.exampleConfiguration()
        resolver = IntentResolver(configuration: config)
    }

    @Test func roomResolvesByIdNameOrAliasAndIsInferredFromAUniqueDevice() {
        for said in ["living-room", "Living room", "lounge", "the sitting room"] {
            guard case .success(let room) = resolver.resolveRoom(for: HouseControlIntent(room: said, device: "lamp")) else {
                Issue.record("\(said) did not resolve")
                continue
            }
            #expect(room.id == "living-room")
        }
        guard case .success(let garage) = resolver.resolveRoom(for: HouseControlIntent(device: "garage door")) else {
            Issue.record("room of the garage door not inferred")
            return
        }
        #expect(garage.id == "garage")
        // "Turn everything on" with no room asks which room; "turn it on" asks which device.
        guard case .needsValue = resolver.resolveRoom(for: HouseControlIntent(action: .on, plural: true)) else {
            Issue.record("expected needsValue without room or device")
            return
        }
        guard case .notRequired = resolver.resolveRoom(for: HouseControlIntent(action: .on)) else {
            Issue.record("a pronoun (no device, singular) needs no room: the device is asked")
            return
        }
    }

    @Test func everythingOffInARoomTargetsEveryDeviceThatCanSwitchOff() throws {
        let garage = config.room(id: "garage")
        let off = resolver.resolveDevice(for: HouseControlIntent(room: "garage", action: .off, plural: true), room: garage)
        // The garage door opens and closes; it has no "off" and is left alone.
        guard case .success(let target) = off else { throw ResolverTestError("expected success, got \(off)") }
        #expect(target.ids == ["garage-light"])

        let bathroom = config.room(id: "bathroom")
        let heater = resolver.resolveDevice(for: HouseControlIntent(room: "bathroom", action: .off, plural: true), room: bathroom)
        // The heater is `confirm: true`, but off is its safe state: no yes is asked.
        guard case .success(let switchedOff) = heater else { throw ResolverTestError("expected success, got \(heater)") }
        #expect(switchedOff.ids == ["bathroom-heater"])

        // "Everything on" is not guessed: it asks which device.
        let kitchen = config.room(id: "kitchen")
        let on = resolver.resolveDevice(for: HouseControlIntent(room: "kitchen", action: .on, plural: true), room: kitchen)
        guard case .needsValue = on else { throw ResolverTestError("expected needsValue, got \(on)") }
    }

    @Test func everythingOffInTheHouseAsksFirstWhenItIsMoreThanConfirmAbove() throws {
        let intent = HouseControlIntent(action: .off, plural: true, wholeHouse: true)
        guard case .notRequired = resolver.resolveRoom(for: intent) else { throw ResolverTestError("the house needs no room") }
        let asked = resolver.resolveDevice(for: intent, room: nil)
        guard case .confirmationRequired(let target, let question) = asked else { throw ResolverTestError("expected a confirmation, got \(asked)") }
        // Every device that can switch off; not the garage door, which opens and closes.
        #expect(target.ids.count == config.devices.filter { $0.kind.supportedActions.contains(.off) && $0.opener == nil }.count)
        #expect(!target.ids.contains("garage-door"))
        #expect(question.hasPrefix("Do you want me to turn off \(target.ids.count) devices: the "))
        guard case .success = resolver.resolveDevice(for: intent, room: nil, answers: IntentAnswers(confirmed: true)) else {
            throw ResolverTestError("a yes should go ahead")
        }
        // Within the limit no question: the three lights of the kitchen and hall, say.
        var small = config
        small.house.confirmAbove = 100
        small.devices = small.devices.filter { !$0.confirm }
        let quiet = IntentResolver(configuration: small).resolveDevice(for: intent, room: nil)
        guard case .success = quiet else { throw ResolverTestError("expected success under the limit, got \(quiet)") }
        // "The lights" with no room asks which room; "all the lights" is the house.
        let which = resolver.resolveRoom(for: HouseControlIntent(action: .off, device: "light", plural: true))
        guard case .disambiguation(_, let roomQuestion) = which else { throw ResolverTestError("expected a room question, got \(which)") }
        #expect(roomQuestion.hasPrefix("The lights in which room: "))
        guard case .notRequired = resolver.resolveRoom(for: HouseControlIntent(action: .off, device: "light", plural: true, wholeHouse: true)) else {
            throw ResolverTestError("all the lights need no room")
        }
    }

    @Test func whatARelayCannotDoIsAnsweredWithWhatItCanAndNothingIsPlanned() throws {
        let dim = resolver.resolve(.control(HouseControlIntent(room: "bedroom", device: "light", plural: true, capability: .brightness)))
        #expect(dim.resolved == nil)
        let reason = try #require(dim.parameters.last?.reason)
        #expect(reason == "The bedroom bedside lamp and bedroom ceiling light are switched by relays: they can only be turned on or off, not dimmed or brightened.")
        // The heater needs a yes to be switched, but nothing will be: no question, the answer.
        let heat = resolver.resolve(.control(HouseControlIntent(room: "bathroom", device: "heater", capability: .temperature)))
        #expect(heat.parameters.map(\.kind) == [.success, .success, .unsupported])
        #expect(heat.parameters.last?.reason?.hasSuffix("it can only be turned on or off, not set to a temperature.") == true)
        // A level on a cover is a position; on a door, it opens or closes.
        let door = resolver.resolve(.control(HouseControlIntent(device: "garage door", capability: .level)))
        #expect(door.parameters.last?.reason == "The garage door is worked by a push button: I can open, close or stop it, not set it to a position.")
    }

    @Test func everyKindAnswersToItsOwnNameFirst() {
        // The matcher and the phrase lists rely on it: a kind's words hold its own name.
        for kind in DeviceKind.allCases { #expect(kind.words.first == kind.rawValue, "\(kind)") }
    }

    @Test func deviceDisambiguationOffersTheCandidates() {
        let bedroom = config.room(id: "bedroom")
        let result = resolver.resolveDevice(for: HouseControlIntent(room: "bedroom", action: .on, device: "light"), room: bedroom)
        guard case .disambiguation(let options, let question) = result else {
            Issue.record("expected disambiguation, got \(result)")
            return
        }
        #expect(options.map(\.ids) == [["bedroom-ceiling-light"], ["bedroom-bedside-lamp"]])
        #expect(question == "Which light: the ceiling light or the bedside lamp?")
        let answered = resolver.resolveDevice(for: HouseControlIntent(room: "bedroom", action: .on, device: "light"), room: bedroom,
                                              answers: IntentAnswers(choices: ["device": "bedroom-ceiling-light"]))
        guard case .success(let target) = answered else {
            Issue.record("expected success after the choice")
            return
        }
        #expect(target.ids == ["bedroom-ceiling-light"])
    }

    @Test func pluralFormsMatchEveryDeviceOfTheName() {
        #expect(config.devices(matching: "lights", inRoom: "bedroom").devices.count == 2)
        #expect(config.devices(matching: "lights", inRoom: "bedroom").plural)
        #expect(config.devices(matching: "all the lamps", inRoom: "bedroom").devices.count == 2)
        #expect(config.devices(matching: "lamp", inRoom: "bedroom").plural == false)
        #expect(config.devices(matching: "bedroom bedside lamp").devices.map(\.id) == ["bedroom-bedside-lamp"])
        #expect(config.devices(matching: "lights").devices.filter { $0.kind == .light }.count == 7)
    }

    @Test func actionUnsupportedByTheKindSaysWhy() {
        let door = config.device(id: "garage-door")!
        guard case .unsupported(let reason) = resolver.resolveAction(for: HouseControlIntent(action: .on), devices: [door]) else {
            Issue.record("expected unsupported")
            return
        }
        #expect(reason == "The garage door is worked by a push button: I can open, close or stop it, not turn it on.")
    }

    @Test func modeDurationLimits() {
        func result(_ d: Duration?) -> ResolutionResult<Duration> { resolver.resolveDuration(for: SetHouseModeIntent(mode: "night", duration: d)) }
        guard case .notRequired = result(nil) else { Issue.record("nil duration should be notRequired"); return }
        guard case .success(let d) = result(.seconds(60)) else { Issue.record("60s should resolve"); return }
        #expect(d == .seconds(60))
        guard case .success = result(.seconds(7 * 86_400)) else { Issue.record("a week (holiday mode) should resolve"); return }
        guard case .unsupported(let long) = result(.seconds(31 * 86_400 + 1)) else { Issue.record("over 31 days should be unsupported"); return }
        #expect(long.contains("at most 31 days"))
        guard case .unsupported = result(.zero) else { Issue.record("zero should be unsupported"); return }
    }

    @Test func modeRoomsMustExistAndBeTouchedByTheMode() {
        let movie = config.mode(id: "movie")
        guard case .unsupported(let reason) = resolver.resolveRooms(for: SetHouseModeIntent(mode: "movie", rooms: ["kitchen"]), mode: movie) else {
            Issue.record("expected unsupported")
            return
        }
        #expect(reason == "The movie mode doesn't change anything in the kitchen.")
        guard case .unsupported(let unknown) = resolver.resolveRooms(for: SetHouseModeIntent(mode: "night", rooms: ["attic"]), mode: nil) else {
            Issue.record("expected unsupported")
            return
        }
        #expect(unknown.contains("There's no room called \"attic\""))
    }

    @Test func energyDefaultsToTodayAndRejectsSillyRanges() {
        guard case .success(.today) = resolver.resolveTimeRange(for: QueryHouseStatusIntent(queryType: .energy), type: .energy) else {
            Issue.record("expected today by default")
            return
        }
        guard case .unsupported = resolver.resolveTimeRange(for: QueryHouseStatusIntent(queryType: .energy, timeRange: .lastHours(0)), type: .energy) else {
            Issue.record("expected unsupported for 0 hours")
            return
        }
        guard case .notRequired = resolver.resolveTimeRange(for: QueryHouseStatusIntent(queryType: .mode), type: .mode) else {
            Issue.record("range is not required for a mode query")
            return
        }
    }

    @Test func dialogListsReadNaturally() {
        #expect(HouseDialog.list(["a"]) == "a")
        #expect(HouseDialog.list(["a", "b"]) == "a or b")
        #expect(HouseDialog.list(["a", "b", "c"], conjunction: "and") == "a, b and c")
        #expect(HouseDialog.energy(kWh: 1.23456, range: .lastHours(3)) == "The house used 1.235 kWh in the last 3 hours.")
    }

    @Test func energySpansFollowTheHouseTimeZone() {
        // 2026-07-01 00:30 UTC is 01:30 in London (BST): "today" starts at 23:00 UTC.
        let now = WallInstant(sinceEpoch: .seconds(1_782_865_800))
        let span = EnergyLedger.span(of: .today, now: now, calendar: HouseCalendar(house: config.house))
        #expect(span.start == now.advanced(by: .seconds(-5400)))
        let week = EnergyLedger.span(of: .thisWeek, now: now, calendar: HouseCalendar(house: config.house))
        // Wednesday 1 July: the week began on Monday 29 June, 00:00 BST.
        #expect(week.start == span.start.advanced(by: .seconds(-2 * 86400)))
    }
}

/// A failed expectation that stops the test, with what came instead.
struct ResolverTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
