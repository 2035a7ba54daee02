/// Resolving mode changes, status queries and routine runs.
extension IntentResolver {
    /// The longest a mode may be set for.
    public static let maximumModeDuration: Duration = .seconds(31 * 86_400)

    public func resolveMode(for intent: SetHouseModeIntent) -> ResolutionResult<Mode> {
        let names = configuration.modes.map(\.id)
        guard let said = intent.mode else { return .needsValue(question: HouseDialog.whichMode(modes: names)) }
        guard let mode = configuration.mode(matching: said) else {
            return .unsupported(reason: HouseDialog.unknownMode(said, modes: names))
        }
        return .success(mode)
    }

    /// Positive and at most 31 days ("holiday mode for a week"); not required when not said.
    public func resolveDuration(for intent: SetHouseModeIntent) -> ResolutionResult<Duration> {
        guard let d = intent.duration else { return .notRequired }
        if d <= .zero { return .unsupported(reason: HouseDialog.modeNotPositive()) }
        if d > Self.maximumModeDuration { return .unsupported(reason: HouseDialog.modeTooLong(d)) }
        return .success(d)
    }

    /// The rooms said (or a floor's rooms, or the speaker's room for "in here"), each a known
    /// room; not required when none were said.
    public func resolveRooms(for intent: SetHouseModeIntent, mode: Mode?, answers: IntentAnswers = .none) -> ResolutionResult<[Room]> {
        var rooms: [Room] = []
        if let said = intent.rooms, !said.isEmpty {
            for name in said {
                guard let room = configuration.room(matching: name) else {
                    return .unsupported(reason: HouseDialog.unknownRoom(name, rooms: configuration.rooms.map(\.name)))
                }
                if !rooms.contains(room) { rooms.append(room) }
            }
        } else if let said = intent.floor {
            switch resolveFloor(said) {
            case .success(let floor): rooms = configuration.rooms(onFloor: floor.id)
            case .unsupported(let reason): return .unsupported(reason: reason)
            default: return .notRequired
            }
        } else if intent.here {
            guard let room = speakerRoom(answers) else { return .needsValue(question: HouseDialog.whichRoomAreYouIn()) }
            rooms = [room]
        } else {
            return .notRequired
        }
        if let mode {
            let ids = Set(rooms.map(\.id))
            let touched = mode.devices.keys.contains { configuration.device(id: $0).map { ids.contains($0.room) } ?? false }
            if !touched {
                return .unsupported(reason: HouseDialog.modeChangesNothing(mode: mode.id, rooms: rooms.map { $0.name.lowercased() }))
            }
        }
        return .success(rooms)
    }

    func resolveSetMode(_ intent: SetHouseModeIntent, answers: IntentAnswers) -> IntentResolution {
        let mode = resolveMode(for: intent)
        var params = [ParameterResolution(parameter: "mode", result: mode) { [.init(id: $0.id.rawValue, label: $0.names.first ?? $0.id.rawValue)] }]
        guard case .success(let m) = mode else { return IntentResolution(parameters: params, resolved: nil) }
        let duration = resolveDuration(for: intent)
        params.append(ParameterResolution(parameter: "duration", result: duration) {
            [.init(id: DurationParser.format($0), label: DurationParser.format($0))]
        })
        let rooms = resolveRooms(for: intent, mode: m, answers: answers)
        params.append(ParameterResolution(parameter: "rooms", result: rooms) { $0.map(Self.option) })
        if params.contains(where: \.isBlocking) { return IntentResolution(parameters: params, resolved: nil) }
        var d: Duration?
        if case .success(let v) = duration { d = v }
        var r: [Room] = []
        if case .success(let v) = rooms { r = v }
        let sensitive = configuration.modeTargets(m, rooms: r).filter { $0.device.confirm && $0.state == .on }.map(\.device)
        if (m.confirm || !sensitive.isEmpty) && !answers.confirmed {
            let question = HouseDialog.confirmMode(m.id, devices: sensitive.map(configuration.label(for:)))
            params[0] = ParameterResolution(parameter: "mode", result: ResolutionResult.confirmationRequired(m, question: question)) {
                [.init(id: $0.id.rawValue, label: $0.names.first ?? $0.id.rawValue)]
            }
        }
        return IntentResolution(parameters: params, resolved: .setMode(m, rooms: r, duration: d))
    }

    // MARK: Query

    public func resolveQueryType(for intent: QueryHouseStatusIntent) -> ResolutionResult<QueryType> {
        intent.queryType.map(ResolutionResult.success) ?? .needsValue(question: HouseDialog.whatQuery())
    }

    /// Energy defaults to today; other queries take no range.
    public func resolveTimeRange(for intent: QueryHouseStatusIntent, type: QueryType) -> ResolutionResult<TimeRange> {
        guard type == .energy else { return .notRequired }
        guard let range = intent.timeRange else { return .success(.today) }
        if case .lastHours(let n) = range, !(1...(31 * 24)).contains(n) {
            return .unsupported(reason: HouseDialog.badTimeRange())
        }
        return .success(range)
    }

    func resolveQuery(_ intent: QueryHouseStatusIntent, answers: IntentAnswers) -> IntentResolution {
        let type = resolveQueryType(for: intent)
        var params = [ParameterResolution(parameter: "queryType", result: type) { [.init(id: $0.rawValue, label: $0.rawValue)] }]
        guard case .success(let t) = type else { return IntentResolution(parameters: params, resolved: nil) }
        let range = resolveTimeRange(for: intent, type: t)
        params.append(ParameterResolution(parameter: "timeRange", result: range) {
            [.init(id: Self.rangeID($0), label: HouseDialog.rangeName($0))]
        })
        var room: Room?
        var scope = DeviceScope.house
        if let said = intent.room {
            let r: ResolutionResult<Room> = configuration.room(matching: said).map(ResolutionResult.success)
                ?? .unsupported(reason: HouseDialog.unknownRoom(said, rooms: configuration.rooms.map(\.name)))
            params.append(ParameterResolution(parameter: "room", result: r) { [Self.option($0)] })
            if case .success(let v) = r { room = v; scope = DeviceScope(room: v) }
        } else if let said = intent.floor {
            let f = resolveFloor(said)
            params.append(ParameterResolution(parameter: "floor", result: f) { [.init(id: $0.id.rawValue, label: $0.name)] })
            if case .success(let v) = f { scope = DeviceScope(floor: v, in: configuration) }
        } else if intent.here {
            // "What's on in here": the speaker's room, asked for when unknown.
            guard let context = speakerRoom(answers) else {
                params.append(ParameterResolution(parameter: "room", result: ResolutionResult<Room>.needsValue(question: HouseDialog.whichRoomAreYouIn())) { [Self.option($0)] })
                return IntentResolution(parameters: params, resolved: nil)
            }
            room = context
            scope = DeviceScope(room: context)
        } else if let name = intent.device, let context = speakerRoom(answers),
                  !configuration.devices(matching: name, inRoom: context.id, plural: intent.plural).devices.isEmpty {
            // "Is the light on", said in the kitchen: the kitchen's light.
            scope = DeviceScope(room: context)
        }
        var devices: [Device]?
        if let name = intent.device {
            let found = configuration.devices(matching: name, inRooms: scope.roomIDs, plural: intent.plural).devices
            let r: ResolutionResult<DeviceTarget> = found.isEmpty
                ? .unsupported(reason: HouseDialog.unknownDevice(name, place: scope.place, known: []))
                : .success(DeviceTarget(found))
            params.append(ParameterResolution(parameter: "device", result: r) { $0.devices.map { Self.option($0, configuration) } })
            devices = found
        } else if room == nil, scope.roomIDs != nil {
            devices = scope.devices(of: configuration)
        }
        if params.contains(where: \.isBlocking) { return IntentResolution(parameters: params, resolved: nil) }
        var r = TimeRange.today
        if case .success(let v) = range { r = v }
        return IntentResolution(parameters: params, resolved: .query(t, range: r, room: room, devices: devices, place: scope.place))
    }

    static func rangeID(_ r: TimeRange) -> String {
        switch r {
        case .today: "today"
        case .yesterday: "yesterday"
        case .thisWeek: "this-week"
        case .lastHours(let n): "last-\(n)h"
        }
    }

    // MARK: Routine

    public func resolveRoutine(for intent: RunRoutineIntent) -> ResolutionResult<Routine> {
        let shortcuts = configuration.routines.map(\.shortcut)
        guard let said = intent.routine else { return .needsValue(question: HouseDialog.whichRoutine(routines: shortcuts)) }
        guard let routine = configuration.routine(matching: said) else {
            return .unsupported(reason: HouseDialog.unknownRoutine(said, routines: shortcuts))
        }
        return .success(routine)
    }

    func resolveRunRoutine(_ intent: RunRoutineIntent, answers: IntentAnswers) -> IntentResolution {
        let r = resolveRoutine(for: intent)
        let params = [ParameterResolution(parameter: "routine", result: r) { [.init(id: $0.id.rawValue, label: $0.shortcut)] }]
        guard case .success(let routine) = r else { return IntentResolution(parameters: params, resolved: nil) }
        return IntentResolution(parameters: params, resolved: .runRoutine(routine))
    }
}
