import Foundation

/// A relay command from one controller to the node that owns the relay, on
/// `<base>/node/<node>/relay`: the intent was already resolved, confirmed and permitted on the
/// sending node, so the owner only carries it out (through its relay bank and its safety rules).
/// `{"device":"garage-door","pulse_ms":1000}`, `{"device":"bedroom-fan","state":"ON"}`, and for a
/// cover `{"device":"living-shutter","position":40}` or `{"device":"living-shutter","stop":true}`
/// (the owner plans the move from the position it keeps).
public struct PeerRelayCommand: Sendable, Equatable, Codable {
    public var device: DeviceID
    /// The command's id (the request or routine run it carries out, and the device): the owner
    /// carries out a repeated id once (a request retried after a takeover of the coordinator).
    public var id: String?
    public var state: DeviceState?
    /// Pulse length in milliseconds.
    public var pulseMilliseconds: Int64?
    /// Where a cover goes, 0 (closed) to 100 (open).
    public var position: Int?
    /// True to stop a cover.
    public var stop: Bool?

    enum CodingKeys: String, CodingKey {
        case device, state, position, stop, id
        case pulseMilliseconds = "pulse_ms"
    }

    public init(device: DeviceID, state: DeviceState) {
        self.device = device
        self.state = state
    }

    public init(device: DeviceID, pulse: Duration) {
        self.device = device
        self.pulseMilliseconds = pulse.wholeMilliseconds
    }

    /// A cover to `position`, or stopped when nil.
    public init(device: DeviceID, position: Int?) {
        self.device = device
        if let position { self.position = position } else { self.stop = true }
    }

    /// The command topic of `node`.
    public static func topic(base: String, node: NodeID) -> String { "\(base)/node/\(node)/relay" }

    /// The pulse length, if this is a pulse.
    public var pulse: Duration? { pulseMilliseconds.map { .milliseconds($0) } }

    public var json: String { sortedJSON() }

    /// What a relay command looks like, for the reason of a refusal.
    static let expected = #"expected {"device":ID,"state":"ON"|"OFF"}, {"device":ID,"pulse_ms":N}, {"device":ID,"position":0-100} or {"device":ID,"stop":true}"#

    /// The longest pulse a relay command may ask for, in milliseconds (10 minutes).
    static let maximumPulseMilliseconds: Int64 = 600_000

    /// Parses a payload, checked against `InputLimits` (size, JSON nesting, the device id's
    /// length) before it is decoded; the error says what was expected.
    public static func parse(_ payload: [UInt8]) throws(MalformedInput) -> PeerRelayCommand {
        try InputLimits.checkJSON(payload)
        guard let c = try? JSONDecoder().decode(PeerRelayCommand.self, from: Data(payload)), !c.device.isEmpty,
              [c.state != nil, c.pulseMilliseconds != nil, c.position != nil, c.stop == true].filter({ $0 }).count == 1
        else { throw MalformedInput(expected) }
        if let position = c.position, !(0...100).contains(position) { throw MalformedInput("\"position\" must be from 0 to 100") }
        try InputLimits.checkID(c.device.rawValue, field: "device")
        if let id = c.id { try InputLimits.checkID(id, field: "id") }
        if let pulse = c.pulseMilliseconds, pulse <= 0 || pulse > maximumPulseMilliseconds {
            throw MalformedInput("\"pulse_ms\" must be from 1 to \(maximumPulseMilliseconds)")
        }
        return c
    }
}
