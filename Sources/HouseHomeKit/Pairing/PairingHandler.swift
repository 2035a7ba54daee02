import Crypto
import Foundation
import Synchronization

/// Pair-setup, pair-verify and the pairings endpoint of the bridge: the TLV8 exchanges of HAP's
/// chapter 5, over the identity, the setup code and the stored pairings. One pair-setup at a
/// time (another is told Busy); a paired bridge refuses pair-setup (Unavailable); after
/// `PairingStore.maxUnsuccessfulAttempts` wrong codes it refuses it for good (MaxTries) until
/// its pairings file is removed.
public final class PairingHandler: Sendable {
    public let identity: AccessoryIdentity
    public let store: PairingStore
    let setupCode: SetupCode
    /// The connection whose pair-setup is under way.
    let setupOwner = Mutex<Int?>(nil)

    public init(identity: AccessoryIdentity, setupCode: SetupCode, store: PairingStore) {
        self.identity = identity
        self.setupCode = setupCode
        self.store = store
    }

    /// A connection closed: a pair-setup it had under way ends.
    func connectionClosed(_ connection: Int) {
        setupOwner.withLock { if $0 == connection { $0 = nil } }
    }

    static func answer(state: UInt8, error: TLVErrorCode) -> TLV8 {
        var tlv = TLV8()
        tlv.append(.state, byte: state)
        tlv.append(.error, byte: error.rawValue)
        return tlv
    }

    package static func random(_ count: Int) -> [UInt8] {
        var g = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &g) }
    }
}
