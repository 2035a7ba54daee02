/// What can go wrong in the HomeKit bridge (HAP over IP): malformed input from a controller, a
/// broken session, the state directory. Never carries a setup code or a key.
public enum HomeKitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A TLV8 item that does not fit: `offset` is where the bad item starts.
    case malformedTLV(offset: Int, reason: String)
    /// An HTTP message a HAP peer cannot have meant.
    case malformedHTTP(reason: String)
    /// An encrypted frame failed its authentication or was longer than HAP allows: the session closes.
    case badFrame(reason: String)
    /// A file in the state directory could not be read or written.
    case stateFile(path: String, reason: String)
    /// A setup code that is not `XXX-XX-XXX` with digits, or one HAP forbids (`123-45-678`, all one digit).
    case invalidSetupCode
    /// A cryptographic step failed (a key of the wrong size, a signature that does not verify).
    case crypto(String)
    /// DNS-SD through avahi failed: `reason` says at which call and avahi's words for why.
    case mdns(String)
    /// The setup QR code could not be made (libqrencode's reason).
    case qrCode(String)
    /// The bridge has not run yet: `path` (its setup code or setup ID) is made by its first start.
    case notStartedYet(path: String)

    public var description: String {
        switch self {
        case .malformedTLV(let offset, let reason): "malformed TLV8 at byte \(offset): \(reason)"
        case .malformedHTTP(let reason): "malformed HTTP: \(reason)"
        case .badFrame(let reason): "bad encrypted frame: \(reason)"
        case .stateFile(let path, let reason): "\(path): \(reason)"
        case .invalidSetupCode: "the setup code must be XXX-XX-XXX in digits, not a trivial one (123-45-678, one digit repeated)"
        case .crypto(let what): "crypto: \(what)"
        case .mdns(let reason): "mDNS: \(reason)"
        case .qrCode(let reason): "QR code: \(reason)"
        case .notStartedYet(let path):
            "\(path) does not exist yet: the bridge makes it when `housectl serve` first runs with homekit: {enabled: true}"
        }
    }
}
