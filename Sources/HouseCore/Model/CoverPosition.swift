/// Where a cover is, worked out from the time its windings run (a time-based cover): 0 is
/// closed, 100 open. A value type that the house service keeps per cover and moves on at each
/// edge of a winding, with the edge's time.
///
/// The position is `assumed` after a restart (the cover may have been moved by hand, or the
/// power cut mid-travel) and until a run has lasted a full travel, which leaves the cover at its
/// end stop whatever it was before.
public struct CoverPosition: Sendable, Equatable {
    /// The position when the current motion began, or the position now when not moving.
    public var position: Double
    /// True until a full travel has confirmed the position.
    public var assumed: Bool
    /// The winding running now, and since when.
    public var motion: Motion?

    public struct Motion: Sendable, Equatable {
        public var direction: CoverDirection
        public var since: WallInstant

        public init(direction: CoverDirection, since: WallInstant) {
            self.direction = direction
            self.since = since
        }
    }

    public init(position: Double, assumed: Bool, motion: Motion? = nil) {
        self.position = min(100, max(0, position))
        self.assumed = assumed
        self.motion = motion
    }

    /// A cover housectl has never seen move: closed, assumed (the first open runs a full travel).
    public static let unknown = CoverPosition(position: 0, assumed: true)

    /// The position at `now`, moving on with the running winding, between 0 and 100.
    public func position(at now: WallInstant, motor: CoverMotor) -> Double {
        guard let motion else { return position }
        let ran = motion.since.duration(to: now)
        let moved = max(0, ran / motor.travelTime(motion.direction)) * 100
        return min(100, max(0, position + (motion.direction == .up ? moved : -moved)))
    }

    /// The position at `now` rounded to a whole percent (what is published and said).
    public func percent(at now: WallInstant, motor: CoverMotor) -> Int {
        Int(position(at: now, motor: motor).rounded())
    }

    /// A winding went on at `instant` (a motion the other way ends there first).
    public mutating func started(_ direction: CoverDirection, at instant: WallInstant, motor: CoverMotor) {
        if let motion {
            if motion.direction == direction { return }
            stopped(motion.direction, at: instant, motor: motor)
        }
        motion = Motion(direction: direction, since: instant)
    }

    /// The winding driving `direction` went off at `instant`: the cover is where the run left it.
    /// A run as long as a full travel ends at the end stop, which confirms the position.
    public mutating func stopped(_ direction: CoverDirection, at instant: WallInstant, motor: CoverMotor) {
        guard let motion, motion.direction == direction else { return }
        position = position(at: instant, motor: motor)
        if motion.since.duration(to: instant) >= motor.travelTime(direction) {
            position = direction == .up ? 100 : 0
            assumed = false
        }
        self.motion = nil
    }

    /// What the cover is doing at `now`, as its state topic says it.
    public func state(at now: WallInstant, motor: CoverMotor) -> CoverState {
        if let motion { return motion.direction == .up ? .opening : .closing }
        let p = percent(at: now, motor: motor)
        return p <= 0 ? .closed : (p >= 100 ? .open : .stopped)
    }

    /// How to bring the cover to `target` (0 closed ... 100 open) from where it is at `now`.
    ///
    /// A run to an end (0 or 100) keeps the winding on for the end margin past the computed
    /// travel, or for a full travel and the margin while the position is assumed, so that the
    /// cover reaches its end stop. A cover already at the target and still stays.
    public func plan(toward target: Int, at now: WallInstant, motor: CoverMotor) -> CoverPlan {
        let target = min(100, max(0, target))
        let here = position(at: now, motor: motor)
        let toEnd = target == 0 || target == 100
        if motion == nil, !(toEnd && assumed), abs(Double(target) - here) < 0.5 { return .stay(at: target) }
        let direction: CoverDirection
        if toEnd { direction = target == 100 ? .up : .down } else {
            if abs(Double(target) - here) < 0.5 { return .stop }
            direction = Double(target) > here ? .up : .down
        }
        let travel = motor.travelTime(direction)
        if toEnd {
            let run = assumed ? travel : travel * (abs(Double(target) - here) / 100)
            return .run(direction, for: run + motor.endMargin, target: target)
        }
        return .run(direction, for: travel * (abs(Double(target) - here) / 100), target: target)
    }
}
