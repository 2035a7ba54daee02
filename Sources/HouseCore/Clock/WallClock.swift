import Foundation

/// An instant on the wall clock: a point in UTC time that maps to a calendar date.
///
/// Time-of-day logic (routines, relevance, energy over "today") needs dates, which Swift's
/// `ContinuousClock` instants do not carry; `WallClock`s provide them.
public struct WallInstant: InstantProtocol, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Time since 1970-01-01 00:00 UTC.
    public var sinceEpoch: Duration

    public init(sinceEpoch: Duration) { self.sinceEpoch = sinceEpoch }

    public init(_ date: Date) {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        self.sinceEpoch = .milliseconds(Int64(ms))
    }

    public var date: Date {
        let c = sinceEpoch.components
        return Date(timeIntervalSince1970: Double(c.seconds) + Double(c.attoseconds) / 1e18)
    }

    public func advanced(by duration: Duration) -> WallInstant { WallInstant(sinceEpoch: sinceEpoch + duration) }
    public func duration(to other: WallInstant) -> Duration { other.sinceEpoch - sinceEpoch }
    public static func < (a: WallInstant, b: WallInstant) -> Bool { a.sinceEpoch < b.sinceEpoch }
    public var description: String { date.description }
}

/// A clock whose instants are wall-clock instants. Implemented by `SystemWallClock` for real time
/// and, for tests, by `ManualClock` (in HouseTesting).
public protocol WallClock: Clock, Sendable where Instant == WallInstant, Duration == Swift.Duration {
    /// A clock of the same kind that never jumps, for measuring spans that must not follow the
    /// wall clock's corrections (a coordinator's lease when NTP steps the clock at boot). Its
    /// instants mean nothing as dates. By default the clock itself (a test's manual clock).
    var monotonic: any WallClock { get }
}

extension WallClock {
    public var monotonic: any WallClock { self }
}

/// The real wall clock. Sleeps are measured on the monotonic clock.
public struct SystemWallClock: WallClock {
    /// Added to the system's time: zero, or a rehearsal's shift (`init(startingAt:)`).
    public let offset: Duration

    public init() { offset = .zero }

    /// The real clock's pace from `start` on: `now` is `start` at the time of this call (a
    /// rehearsal of another day, `housectl serve --start-time`).
    public init(startingAt start: Date) {
        offset = WallInstant(Date()).duration(to: WallInstant(start))
    }

    public var monotonic: any WallClock { MonotonicWallClock() }
    public var now: WallInstant { WallInstant(Date()).advanced(by: offset) }
    public var minimumResolution: Duration { .milliseconds(1) }

    public func sleep(until deadline: WallInstant, tolerance: Duration? = nil) async throws {
        let delay = now.duration(to: deadline)
        if delay > .zero {
            try await ContinuousClock().sleep(for: delay, tolerance: tolerance)
        } else {
            try Task.checkCancellation()
        }
    }
}

/// The system's monotonic clock (`ContinuousClock`) with `WallInstant`s: spans and sleeps that no
/// wall-clock correction moves. Its instants are time since an arbitrary origin, not dates.
public struct MonotonicWallClock: WallClock {
    private static let origin = ContinuousClock.now
    public init() {}
    public var now: WallInstant { WallInstant(sinceEpoch: Self.origin.duration(to: .now)) }
    public var minimumResolution: Duration { .milliseconds(1) }

    public func sleep(until deadline: WallInstant, tolerance: Duration? = nil) async throws {
        try await ContinuousClock().sleep(until: Self.origin.advanced(by: deadline.sinceEpoch), tolerance: tolerance)
    }
}
