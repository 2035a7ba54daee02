import Foundation

/// A device command from a `set` topic: `ON`, `OFF`, `TOGGLE`, and for a cover `OPEN`, `CLOSE`,
/// `STOP` or a position `0`-`100` (any case), or JSON `{"state":"ON","id":"...","reply_to":"..."}`
/// (a cover's position: `{"position":40}`).
public struct DeviceSetCommand: Sendable, Equatable {
    public var action: HouseAction
    /// A cover's position for action `position`, 0 (closed) to 100 (open).
    public var position: Int?
    /// The sender's command id, for de-duplication of repeated commands.
    public var id: String?
    /// Where the sender wants the answer, if anywhere.
    public var replyTo: String?
    /// The explicit yes a `confirm: true` device needs (`"confirm": true`).
    public var confirmed: Bool

    public init(action: HouseAction, position: Int? = nil, id: String? = nil, replyTo: String? = nil, confirmed: Bool = false) {
        self.action = action
        self.position = position
        self.id = id
        self.replyTo = replyTo
        self.confirmed = confirmed
    }
}

extension DeviceSetCommand {
    /// The intent this command asks of `device` (from its `set` topic or the page): a door,
    /// valve or cover worked by ON/OFF switches (Home Assistant's switch) means open/close.
    public func intent(for device: Device) -> HouseIntent {
        var action = self.action
        let supported = device.kind.supportedActions
        if !supported.contains(action) {
            if action == .on, supported.contains(.open) { action = .open }
            if action == .off, supported.contains(.close) { action = .close }
        }
        return .control(HouseControlIntent(room: device.room.rawValue, action: action, device: device.id.rawValue, position: position))
    }
}

/// A mode command from `mode/set`: a mode id, or JSON `{"mode":"away","duration":"2h","rooms":[...],"id":...}`.
public struct ModeSetCommand: Sendable, Equatable {
    public var mode: String
    public var duration: Duration?
    public var rooms: [String]?
    public var id: String?
    public var replyTo: String?

    public init(mode: String, duration: Duration? = nil, rooms: [String]? = nil, id: String? = nil, replyTo: String? = nil) {
        self.mode = mode
        self.duration = duration
        self.rooms = rooms
        self.id = id
        self.replyTo = replyTo
    }

    /// The intent this command asks for.
    public var intent: HouseIntent { .setMode(SetHouseModeIntent(mode: mode, duration: duration, rooms: rooms)) }
}

/// A request on `intent/request`: free text or a typed intent, with an id and a reply topic.
public struct IntentRequest: Sendable, Equatable {
    public enum Body: Sendable, Equatable {
        /// A phrase to match ("good night house").
        case text(String)
        /// A typed intent.
        case intent(HouseIntent)
        /// The latest `limit` history records (`{"intent":"history","limit":20}`).
        case history(limit: Int)
    }

    public var id: String
    public var body: Body
    public var replyTo: String?
    /// Answers to earlier questions: a chosen option, or `yes` for a confirmation.
    public var answers: [String: String]
    /// The sender confirms up front (`"confirm": true`).
    public var confirmed: Bool
    /// The room the speaker is in (`"context_room"`, from `housectl say --room` or a voice
    /// satellite): "turn off the lights" then means that room's.
    public var contextRoom: String?

    public init(id: String, body: Body, replyTo: String? = nil, answers: [String: String] = [:], confirmed: Bool = false,
                contextRoom: String? = nil) {
        self.id = id
        self.body = body
        self.replyTo = replyTo
        self.answers = answers
        self.confirmed = confirmed
        self.contextRoom = contextRoom
    }

    /// Whether answering it changes nothing (a typed query, the history). A repeat of such a
    /// request is answered afresh, from the state at that moment, so its id is neither recorded
    /// nor its reply kept for repeats (a deviceStates reply is a few kB: `housectl status` asks
    /// twice per run). A phrase may act, so it counts as changing something.
    public var isReadOnly: Bool {
        switch body {
        case .intent(.query), .history: true
        case .intent, .text: false
        }
    }

    /// The answers and context this request carries, for the pipeline.
    public var intentAnswers: IntentAnswers {
        IntentAnswers(choices: answers, confirmed: confirmed, contextRoom: contextRoom)
    }
}
