import Foundation
import HouseCore
import HouseMQTT
import Synchronization

/// The page's security state: who is logged in (session cookies), the token every state-changing
/// request must carry (CSRF), and the limit on failed logins. Without a password file (a page
/// bound to loopback) nobody logs in, and the CSRF token is one per run.
public final class WebSessions: Sendable {
    /// A logged-in browser.
    public struct Session: Sendable, Equatable {
        /// The cookie's value.
        public let id: String
        /// The token the page sends back on every POST (`X-CSRF-Token`).
        public let csrf: String
        public let user: String
        var lastUsed: WallInstant
    }

    /// What a login attempt gave.
    public enum Login: Sendable, Equatable {
        case accepted(Session)
        case refused
        /// Too many failures from this address (or from everywhere): try again after this long.
        case tooMany(retryAfter: Duration)
    }

    /// The users, when the page asks for a password.
    public let passwords: WebPasswordFile?
    /// The CSRF token of a page without a password.
    public let openCSRF: String
    /// How long an unused session lasts.
    public static let idleLifetime: Duration = .seconds(7 * 24 * 3600)
    /// Failures from one address before it must wait, and the first wait (doubled at each
    /// further failure, up to `longestWait`).
    public static let failuresBeforeWait = 5
    public static let firstWait: Duration = .seconds(60)
    public static let longestWait: Duration = .seconds(15 * 60)
    /// Failures from all addresses within a minute that make everyone wait a minute.
    public static let globalFailuresPerMinute = 30
    static let maximumSessions = 64

    private struct Failures {
        var count = 0
        var waitUntil: WallInstant?
    }

    private struct State {
        var sessions: [String: Session] = [:]
        var failures: [String: Failures] = [:]
        var recentFailures: [WallInstant] = []
    }

    private let state = Mutex(State())
    private let clock: any WallClock
    /// The thread bcrypt runs on, for every page of the process.
    static let hasher = BlockingWorker(name: "housectl-web-bcrypt")

    public init(passwords: WebPasswordFile?, clock: any WallClock) {
        self.passwords = passwords
        self.clock = clock
        openCSRF = Self.token()
    }

    /// Whether the page asks for a password.
    public var requiresLogin: Bool { passwords != nil }

    /// The session a cookie names, if it is live (its idle time starts again).
    public func session(_ id: String?) -> Session? {
        guard let id, !id.isEmpty else { return nil }
        let now = clock.now
        return state.withLock { s in
            guard var session = s.sessions[id] else { return nil }
            guard now < session.lastUsed.advanced(by: Self.idleLifetime) else {
                s.sessions[id] = nil
                return nil
            }
            session.lastUsed = now
            s.sessions[id] = session
            return session
        }
    }

    /// Checks a login from `address`; a locked-out address is refused without looking at the
    /// password. bcrypt takes its time on a thread of its own (never the concurrency pool, which
    /// carries the commands), one check at a time.
    public func login(user: String, password: String, from address: String) async -> Login {
        guard let passwords else { return .refused }
        if let wait = waiting(address, now: clock.now) { return .tooMany(retryAfter: wait) }
        let accepted = await Self.hasher.run { passwords.check(user: user, password: password) }
        let now = clock.now
        guard accepted else {
            return state.withLock { s in
                var f = s.failures[address] ?? Failures()
                f.count += 1
                if f.count >= Self.failuresBeforeWait {
                    let doublings = min(f.count - Self.failuresBeforeWait, 10)
                    let wait = min(Self.firstWait * (1 << doublings), Self.longestWait)
                    f.waitUntil = now.advanced(by: wait)
                }
                s.failures[address] = f
                s.recentFailures = s.recentFailures.filter { $0 > now.advanced(by: .seconds(-60)) } + [now]
                return .refused
            }
        }
        let session = Session(id: Self.token(), csrf: Self.token(), user: user, lastUsed: now)
        state.withLock { s in
            s.failures[address] = nil
            if s.sessions.count >= Self.maximumSessions, let oldest = s.sessions.values.min(by: { $0.lastUsed < $1.lastUsed }) {
                s.sessions[oldest.id] = nil
            }
            s.sessions[session.id] = session
        }
        return .accepted(session)
    }

    /// Ends a session.
    public func logout(_ id: String) {
        _ = state.withLock { $0.sessions.removeValue(forKey: id) }
    }

    /// How long `address` (or everyone) must still wait before trying again, if at all.
    private func waiting(_ address: String, now: WallInstant) -> Duration? {
        state.withLock { s in
            let recent = s.recentFailures.filter { $0 > now.advanced(by: .seconds(-60)) }
            if recent.count >= Self.globalFailuresPerMinute, let first = recent.first {
                return now.duration(to: first.advanced(by: .seconds(60)))
            }
            if let until = s.failures[address]?.waitUntil, now < until { return now.duration(to: until) }
            return nil
        }
    }

    /// 32 random bytes in hex, from the system's cryptographic generator.
    static func token() -> String {
        var rng = SystemRandomNumberGenerator()
        return (0..<32).map { _ in
            let b = UInt8.random(in: 0...255, using: &rng)
            return String(b, radix: 16).count == 1 ? "0" + String(b, radix: 16) : String(b, radix: 16)
        }.joined()
    }

    /// Whether `text` has the form of a token (64 hex digits).
    static func isToken(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Compares two tokens in time that does not depend on where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in x.indices { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}
