import HouseCore

/// What a characteristic stands for: a fixed text of the accessory's information, or a part of
/// its device's state (`HomeKitDeviceState`) that reads give and writes ask to change.
public enum HAPRole: Sendable, Equatable {
    /// A fixed value: a name, the manufacturer, a version.
    case constant(HAPJSON)
    /// Identify: write-only, a person asks the accessory to show itself.
    case identify
    /// On of a Lightbulb, Switch, Outlet or Fan.
    case on
    /// On of a mode's Switch: the mode is in force.
    case modeOn
    /// An outlet's OutletInUse: on means in use (a relay has no current sensing).
    case outletInUse
    /// A WindowCovering's CurrentPosition, TargetPosition, PositionState.
    case currentPosition, targetPosition, positionState
    /// A GarageDoorOpener's CurrentDoorState, TargetDoorState, ObstructionDetected.
    case currentDoorState, targetDoorState, obstructionDetected
    /// A ContactSensor's ContactSensorState (0 contact, 1 no contact: open).
    case contactState
    /// A MotionSensor's MotionDetected.
    case motionDetected
    /// A TemperatureSensor's CurrentTemperature.
    case currentTemperature
    /// A StatelessProgrammableSwitch's ProgrammableSwitchEvent (null when read; an event per press).
    case programmableSwitchEvent

    /// The value for a device in `state` (nil: not known yet, read as null); an On not known
    /// (`unknown`) is false here, where a value must be given (`/accessories`).
    func value(_ state: HomeKitDeviceState?) -> HAPJSON? {
        switch self {
        case .constant(let v): return v
        case .identify, .programmableSwitchEvent: return nil
        case .on, .modeOn: return .bool(state?.on ?? false)
        case .outletInUse: return .bool(state?.on ?? false)
        case .currentPosition: return .int(state?.position ?? 0)
        case .targetPosition: return .int(state?.targetPosition ?? state?.position ?? 0)
        case .positionState:
            // 0 going down (closing), 1 going up (opening), 2 stopped.
            switch state?.cover {
            case .closing: return .int(0)
            case .opening: return .int(1)
            default: return .int(2)
            }
        case .currentDoorState:
            // 0 open, 1 closed, 2 opening, 3 closing, 4 stopped.
            switch state?.cover {
            case .open, .obstructed, .unknown, nil: return .int(state?.cover == nil ? 1 : 0)
            case .closed: return .int(1)
            case .opening: return .int(2)
            case .closing: return .int(3)
            case .stopped: return .int(4)
            }
        case .targetDoorState:
            switch state?.cover {
            case .closed, .closing, nil: return .int(1)
            default: return .int(0)
            }
        case .obstructionDetected: return .bool(state?.cover == .obstructed)
        case .contactState: return .int((state?.contactOpen ?? false) ? 1 : 0)
        case .motionDetected: return .bool(state?.motionDetected ?? false)
        case .currentTemperature: return state?.temperature.map(HAPJSON.double) ?? .double(0)
        }
    }

    /// Whether `state` is of a device that has not reported whether it is on (a Tasmota plug
    /// before its first report): its On is read as "No Response" (-70402), never as off.
    func unknown(_ state: HomeKitDeviceState?) -> Bool {
        switch self {
        case .on, .outletInUse: state.map { $0.on == nil } ?? false
        default: false
        }
    }

    /// The event a change from `old` to `new` gives subscribers: the new value when it differs
    /// or was not known;
    /// for a button, its press (0 single, 1 double, 2 long) whenever the count of presses grew,
    /// also a press like the last.
    func event(from old: HomeKitDeviceState?, to new: HomeKitDeviceState) -> HAPJSON? {
        guard self == .programmableSwitchEvent else {
            // An event cannot say "No Response": a state that became unknown is told by reads.
            guard !unknown(new) else { return nil }
            let after = value(new)
            return after == value(old) && !unknown(old) ? nil : after
        }
        guard let presses = new.presses, presses != old?.presses, let press = new.lastPress else { return nil }
        switch press {
        case .single: return .int(0)
        case .double: return .int(1)
        case .long: return .int(2)
        }
    }

    /// What writing `value` asks of `item`; nil for a characteristic whose write changes nothing
    /// in the house (a mode's switch turned off: a mode is left by setting another).
    func write(_ value: HAPJSON, item: HomeKitItem) -> HomeKitWrite? {
        switch (self, item) {
        case (.on, .device(let device)): value.boolValue.map { .setOn(device, $0) }
        case (.modeOn, .mode(let mode)): value.boolValue == true ? .setMode(mode) : nil
        case (.targetPosition, .device(let device)): value.intValue.map { .setPosition(device, $0) }
        case (.targetDoorState, .device(let device)): value.intValue.map { .setDoor(device, open: $0 == 0) }
        default: nil
        }
    }
}
