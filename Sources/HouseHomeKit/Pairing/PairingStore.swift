import Foundation
import Signals
import Synchronization

/// The controllers paired with the bridge (pairing id, Ed25519 long-term public key, admin or
/// not) and the count of unsuccessful pair-setup attempts, in `pairings.json` under the state
/// directory (0600), written before any answer that depends on them goes out.
public final class PairingStore: Sendable {
    /// A paired controller.
    public struct Pairing: Sendable, Equatable, Codable {
        public var id: String
        public var publicKey: [UInt8]
        public var admin: Bool

        public init(id: String, publicKey: [UInt8], admin: Bool) {
            self.id = id
            self.publicKey = publicKey
            self.admin = admin
        }
    }

    /// HAP: at least 16 pairings; we keep room for a household.
    public static let maxPairings = 16
    /// HAP: after 100 unsuccessful pair-setup attempts the accessory refuses pair-setup (MaxTries).
    public static let maxUnsuccessfulAttempts = 100

    private struct Stored: Codable {
        var pairings: [Pairing]
        var unsuccessfulAttempts: Int
    }

    private let path: String
    private let state: Mutex<Stored>
    /// Woken when a pairing is added or removed (the mDNS status flag follows it).
    public let changes = ChangeFeed()

    public init(directory: String) throws(HomeKitError) {
        path = directory + "/pairings.json"
        let stored = try StateFile.read(Stored.self, at: path) ?? Stored(pairings: [], unsuccessfulAttempts: 0)
        state = Mutex(stored)
    }

    public var pairings: [Pairing] { state.withLock { $0.pairings } }
    public var isPaired: Bool { state.withLock { !$0.pairings.isEmpty } }
    public var unsuccessfulAttempts: Int { state.withLock { $0.unsuccessfulAttempts } }

    public func pairing(id: String) -> Pairing? {
        state.withLock { s in s.pairings.first { $0.id == id } }
    }

    /// Adds or updates a pairing. Fails (nil) when there is no room, or when `id` is paired with
    /// another key (HAP: an error, never a silent replacement).
    public func add(_ pairing: Pairing) throws(HomeKitError) -> Bool {
        try update { s in
            if let i = s.pairings.firstIndex(where: { $0.id == pairing.id }) {
                guard s.pairings[i].publicKey == pairing.publicKey else { return false }
                s.pairings[i].admin = pairing.admin
                return true
            }
            guard s.pairings.count < Self.maxPairings else { return false }
            s.pairings.append(pairing)
            s.unsuccessfulAttempts = 0
            return true
        }
    }

    /// Removes a pairing; when no admin is left, every pairing goes (HAP: the accessory is then
    /// unpaired and may be paired again). Returns the ids removed.
    public func remove(id: String) throws(HomeKitError) -> [String] {
        try update { s in
            var removed = s.pairings.filter { $0.id == id }.map(\.id)
            s.pairings.removeAll { $0.id == id }
            if !s.pairings.contains(where: \.admin) {
                removed += s.pairings.map(\.id)
                s.pairings = []
            }
            return removed
        }
    }

    /// Counts an unsuccessful pair-setup attempt (a wrong code); returns the count.
    public func countUnsuccessfulAttempt() throws(HomeKitError) -> Int {
        try update { s in
            s.unsuccessfulAttempts += 1
            return s.unsuccessfulAttempts
        }
    }

    /// Changes the pairings and writes the file under the lock: two changes never write out of order,
    /// and a change that could not be written is not kept.
    private func update<R>(_ change: (inout Stored) -> R) throws(HomeKitError) -> R {
        let path = self.path
        return try state.withLock { (s: inout Stored) throws(HomeKitError) -> R in
            var copy = s
            let result = change(&copy)
            try StateFile.write(copy, to: path)
            let changed = copy.pairings != s.pairings
            s = copy
            if changed { changes.changed() }
            return result
        }
    }
}
