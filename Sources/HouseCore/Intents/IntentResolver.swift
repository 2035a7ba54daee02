/// Resolves each parameter of an intent against the house, SiriKit style: one
/// `ResolutionResult` per parameter, with the questions from `HouseDialog`.
///
/// Pure and synchronous: it reads only the configuration and the answers given so far.
public struct IntentResolver: Sendable {
    public let configuration: HouseConfiguration

    public init(configuration: HouseConfiguration) { self.configuration = configuration }

    /// Every parameter of `intent`, and the resolved intent when nothing blocks.
    public func resolve(_ intent: HouseIntent, answers: IntentAnswers = .none) -> IntentResolution {
        switch intent {
        case .control(let i): resolveControl(i, answers: answers)
        case .setMode(let i): resolveSetMode(i, answers: answers)
        case .query(let i): resolveQuery(i, answers: answers)
        case .runRoutine(let i): resolveRunRoutine(i, answers: answers)
        }
    }

    // MARK: Control

    /// The room: said, chosen, inferred from a device that lives in one room, or asked.
    public func resolveRoom(for intent: HouseControlIntent, answers: IntentAnswers = .none) -> ResolutionResult<Room> {
        if let said = intent.room {
            if let room = configuration.room(matching: said) { return .success(room) }
            return .unsupported(reason: HouseDialog.unknownRoom(said, rooms: configuration.rooms.map(\.name)))
        }
        // "The upstairs lights": the floor is the place (see resolveControl).
        if intent.floor != nil { return .notRequired }
        let context = speakerRoom(answers)
        guard let name = intent.device else {
            // "Turn everything off" with no room: the whole house (see resolveDevice).
            if intent.plural && intent.wholeHouse && intent.action == .off { return .notRequired }
            if let context { return .success(context) }
            // "Turn it on" with nothing before it: the question is which device, not which room.
            if !intent.plural { return .notRequired }
            return .needsValue(question: HouseDialog.whichRoomForAction())
        }
        let (found, plural) = configuration.devices(matching: name, plural: intent.plural)
        let roomIDs = found.map(\.room).uniqued()
        if roomIDs.isEmpty { return .notRequired }
        if roomIDs.count == 1 { return configuration.room(id: roomIDs[0]).map(ResolutionResult.success) ?? .notRequired }
        // "All the lights" is the whole house; "the lights" in several rooms asks which room.
        if (plural || intent.plural) && intent.wholeHouse { return .notRequired }
        let rooms = roomIDs.compactMap(configuration.room(id:))
        if let chosen = answers.choices["room"], let room = rooms.first(where: { $0.id.rawValue == chosen }) {
            return .success(room)
        }
        // The speaker's room, when the name is there too: "turn off the lights" in the kitchen.
        if let context, rooms.contains(where: { $0.id == context.id }) { return .success(context) }
        let roomNames = rooms.map { $0.name.lowercased() }
        if plural || intent.plural {
            let kind = Set(found.map(\.kind)).count == 1 ? PhraseVocabulary.pluralize(found[0].kind.rawValue) : "devices"
            return .disambiguation(options: rooms, question: HouseDialog.whichRoom(plural: kind, rooms: roomNames))
        }
        return .disambiguation(options: rooms, question: HouseDialog.whichRoom(
            device: HouseConfiguration.normalize(name), rooms: roomNames))
    }

    /// The floor a phrase named ("the upstairs lights"), or why it is not one.
    public func resolveFloor(_ said: String) -> ResolutionResult<Floor> {
        configuration.floor(matching: said).map(ResolutionResult.success)
            ?? .unsupported(reason: HouseDialog.unknownFloor(said, floors: configuration.floors.map(\.name)))
    }

    /// The device(s) in `room`, or in the whole house when nil: see `resolveDevice(for:scope:answers:)`.
    public func resolveDevice(for intent: HouseControlIntent, room: Room?, answers: IntentAnswers = .none) -> ResolutionResult<DeviceTarget> {
        resolveDevice(for: intent, scope: room.map(DeviceScope.init(room:)) ?? .house, answers: answers)
    }

    /// The device(s) in `scope`: one by name, all of a plural name, or a question when a
    /// singular name is ambiguous; `confirmationRequired` for `confirm: true` devices without a yes.
    public func resolveDevice(for intent: HouseControlIntent, scope: DeviceScope, answers: IntentAnswers = .none) -> ResolutionResult<DeviceTarget> {
        /// Only the answers without a device name (or with an unknown one) list the scope.
        var inScope: [Device] { scope.devices(of: configuration) }
        guard let name = intent.device else {
            // "Turn everything off in the kitchen": every device of the room that can be switched
            // off. Only off: "everything on" would start heaters and motors, so it asks instead.
            if intent.plural, intent.action == .off, scope.roomIDs != nil || intent.wholeHouse {
                // Not an opener: its "off" (stop) is a press of its button, which may move it.
                let all = inScope.filter { $0.kind.supportedActions.contains(.off) && $0.opener == nil }
                if !all.isEmpty { return confirmingIfNeeded(all, action: .off, answers: answers) }
            }
            let options = scope.roomIDs == nil ? [] : inScope.map(configuration.label(for:))
            return .needsValue(question: HouseDialog.whatDevice(place: scope.place, options: options))
        }
        let (found, pluralName) = configuration.devices(matching: name, inRooms: scope.roomIDs, plural: intent.plural)
        if found.isEmpty {
            // What can be switched there (a sensor or an input is read, not switched).
            let known = (scope.roomIDs == nil ? [] : inScope).filter { !$0.kind.supportedActions.isEmpty }.map { $0.names.first ?? $0.id.rawValue }
            return .unsupported(reason: HouseDialog.unknownDevice(
                HouseConfiguration.normalize(name), place: scope.place, known: known))
        }
        if let chosen = answers.choices["device"], found.count > 1, let d = found.first(where: { $0.id.rawValue == chosen }) {
            return confirmingIfNeeded([d], action: intent.action ?? .toggle, answers: answers)
        }
        // Which one is asked, never guessed: for a singular name several devices have, and for
        // a plural holding an interlocked pair that cannot both be switched on.
        let plural = pluralName || intent.plural
        let switchesOn = intent.action != .off && intent.capability == nil
        let ask = plural ? (switchesOn ? Self.interlocked(found) : nil) : (found.count > 1 ? found : nil)
        if let ask {
            return .disambiguation(options: ask.map { DeviceTarget([$0]) }, question: HouseDialog.whichDevice(
                name: HouseConfiguration.normalize(name), options: ask.map { $0.names.first ?? $0.id.rawValue }))
        }
        return confirmingIfNeeded(found, action: intent.action ?? .toggle, answers: answers)
    }

    /// The target, sorted by id; `confirmationRequired` when one of them is a `confirm: true`
    /// device the action does not bring to its safe state (`Device.isSafe`), or they are more
    /// than `house.confirm_above`, and no yes was given.
    private func confirmingIfNeeded(_ devices: [Device], action: HouseAction, answers: IntentAnswers) -> ResolutionResult<DeviceTarget> {
        let target = devices.sorted { $0.id < $1.id }
        if (target.contains { $0.needsConfirmation(for: action) } || target.count > configuration.house.confirmAbove) && !answers.confirmed {
            return .confirmationRequired(DeviceTarget(target), question: HouseDialog.confirm(
                action: action, devices: target.map(configuration.label(for:))))
        }
        return .success(DeviceTarget(target))
    }

    /// The action: said and supported by every target device, or asked.
    public func resolveAction(for intent: HouseControlIntent, devices: [Device]) -> ResolutionResult<HouseAction> {
        guard let action = intent.action else {
            let label = devices.count == 1 ? configuration.label(for: devices[0]) : "devices"
            let kinds = Set(devices.map(\.kind))
            let actions = HouseAction.allCases.filter { a in kinds.allSatisfy { $0.supportedActions.contains(a) } }
            return .needsValue(question: HouseDialog.whatAction(device: label, actions: actions))
        }
        if let d = devices.first(where: { $0.opener != nil }), ![.open, .close, .stop, .off, .toggle].contains(action) {
            return .unsupported(reason: HouseDialog.openerCannot(action, device: configuration.label(for: d)))
        }
        // With no contacts it cannot be told whether it moves: a press to stop it could start it.
        if action == .stop || action == .off, let d = devices.first(where: { $0.opener.map { !$0.hasContacts } ?? false }) {
            return .unsupported(reason: HouseDialog.openerCannotStop(device: configuration.label(for: d)))
        }
        if let d = devices.first(where: { !$0.kind.supportedActions.contains(action) }) {
            return .unsupported(reason: HouseDialog.unsupportedAction(action, device: configuration.label(for: d), kind: d.kind))
        }
        return .success(action)
    }

    func resolveControl(_ intent: HouseControlIntent, answers: IntentAnswers) -> IntentResolution {
        var intent = intent
        // "Set the blinds to 40%", "open the shutter halfway": a position for a cover (a level
        // for anything else, which a relay cannot do).
        if let c = intent.capability, c == .position || c == .level, intent.position != nil, let name = intent.device {
            let named = configuration.devices(matching: name, inRooms: nil, plural: true).devices
            if !named.isEmpty, named.allSatisfy({ $0.motor != nil }) {
                intent.capability = nil
                intent.action = .position
            }
        }
        var room = resolveRoom(for: intent, answers: answers)
        if intent.capability != nil, intent.device != nil {
            // "Dim the lights": nothing will be switched, so no room needs asking; the answer
            // speaks of every such device of the house.
            switch room {
            case .needsValue, .disambiguation:
                room = .notRequired
                intent.wholeHouse = true
            default: break
            }
        }
        var params = [ParameterResolution(parameter: "room", result: room) { [Self.option($0)] }]
        params.reserveCapacity(5)  // room, floor, device, action, position
        var scope = DeviceScope.house
        switch room {
        case .success(let r): scope = DeviceScope(room: r)
        case .notRequired: break
        default:
            return IntentResolution(parameters: params, resolved: nil)
        }
        if intent.room == nil, let said = intent.floor {
            let floor = resolveFloor(said)
            params.append(ParameterResolution(parameter: "floor", result: floor) { [.init(id: $0.id.rawValue, label: $0.name)] })
            guard case .success(let f) = floor else { return IntentResolution(parameters: params, resolved: nil) }
            scope = DeviceScope(floor: f, in: configuration)
        }
        var device = resolveDevice(for: intent, scope: scope, answers: answers)
        // Asking for what a relay cannot do switches nothing: no yes is needed.
        if intent.capability != nil, case .confirmationRequired(let t, _) = device { device = .success(t) }
        params.append(ParameterResolution(parameter: "device", result: device) { $0.devices.map { Self.option($0, configuration) } })
        let devices: [Device]
        switch device {
        case .success(let t), .confirmationRequired(let t, _): devices = t.devices
        default: return IntentResolution(parameters: params, resolved: nil)
        }
        let action: ResolutionResult<HouseAction> = intent.capability.map { capability in
            devices.allSatisfy { $0.opener != nil }
                ? .unsupported(reason: HouseDialog.openerCannot(.position, device: devices.map(configuration.label(for:)).joined(separator: " and ")))
                : .unsupported(reason: HouseDialog.cannot(capability, devices: devices.map(configuration.label(for:)), kinds: Set(devices.map(\.kind))))
        } ?? resolveAction(for: intent, devices: devices)
        params.append(ParameterResolution(parameter: "action", result: action) { [ParameterResolution.Option(id: $0.rawValue, label: HouseDialog.verb($0))] })
        guard case .success(let a) = action else { return IntentResolution(parameters: params, resolved: nil) }
        if a == .position {
            // "Set the blinds to 40%": a position from 0 to 100, said or asked for.
            let position: ResolutionResult<Int> = intent.position.map { (0...100).contains($0) ? .success($0) : .unsupported(reason: HouseDialog.positionOutOfRange($0)) }
                ?? .needsValue(question: HouseDialog.positionOutOfRange(nil))
            params.append(ParameterResolution(parameter: "position", result: position) { [ParameterResolution.Option(id: "\($0)", label: "\($0)%")] })
            guard case .success = position else { return IntentResolution(parameters: params, resolved: nil) }
        }
        return IntentResolution(parameters: params, resolved: .control(devices: devices, action: a, position: a == .position ? intent.position : nil))
    }

    // MARK: Helpers

    /// The speaker's room (`IntentAnswers.contextRoom`), when known.
    func speakerRoom(_ answers: IntentAnswers) -> Room? {
        answers.contextRoom.flatMap(configuration.room(matching:))
    }

    /// The members of the first interlock group with two or more devices among `devices`.
    static func interlocked(_ devices: [Device]) -> [Device]? {
        let groups = Dictionary(grouping: devices.filter { $0.interlock != nil }, by: { $0.interlock! })
        return groups.keys.sorted().lazy.compactMap { groups[$0] }.first { $0.count > 1 }
    }

    static func option(_ room: Room) -> ParameterResolution.Option { .init(id: room.id.rawValue, label: room.name) }

    static func option(_ device: Device, _ config: HouseConfiguration) -> ParameterResolution.Option {
        .init(id: device.id.rawValue, label: config.label(for: device))
    }
}

extension Array where Element: Hashable {
    /// The elements in order, without repeats.
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
