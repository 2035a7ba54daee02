import HouseCore

/// One input line's debounce and, for a button, its press classification: a value fed the
/// line's edges and the time, all on the kernel's clock (the edges' timestamps), never the wall.
///
/// A level counts once it has held for the debounce time since the last edge; the edges before
/// it are chatter. A button's press is single once no second press followed within the double
/// press time after the release, double on the second release, long once held for the long
/// press time (reported while still held).
struct InputLineState: Sendable {
    let device: DeviceID
    let kind: DeviceKind
    let input: GPIOInput
    /// The settled level.
    private(set) var stable: Bool
    private var candidate: Bool
    private var lastEdge: Duration?
    private var edgesSinceStable = 0
    private var pressedAt: Duration?
    private var releasedAt: Duration?
    private var presses = 0
    private var longSent = false

    init(device: DeviceID, kind: DeviceKind, input: GPIOInput, level: Bool) {
        self.device = device
        self.kind = kind
        self.input = input
        self.stable = level
        self.candidate = level
    }

    mutating func edge(_ e: GPIOEdgeEvent) {
        candidate = e.active
        lastEdge = e.at
        edgesSinceStable += 1
    }

    /// When `check` next has something to decide, if anything waits.
    var nextDeadline: Duration? {
        var times: [Duration] = []
        if edgesSinceStable > 0, let t = lastEdge { times.append(t + input.debounce) }
        if kind == .button {
            if let p = pressedAt, !longSent { times.append(p + input.longPress) }
            if presses == 1, let r = releasedAt { times.append(r + input.doublePress) }
        }
        return times.min()
    }

    /// What has become certain by `now`.
    mutating func check(now: Duration) -> [InputEvent] {
        var out: [InputEvent] = []
        if edgesSinceStable > 0, let t = lastEdge, now - t >= input.debounce {
            let edges = edgesSinceStable
            edgesSinceStable = 0
            if candidate != stable {
                stable = candidate
                out += settled(active: stable, at: t, chatter: edges - 1)
            } else {
                out.append(.chatter(device: device, edges: edges))
            }
        }
        guard kind == .button else { return out }
        if let p = pressedAt, !longSent, now - p >= input.longPress {
            longSent = true
            presses = 0
            releasedAt = nil
            out.append(.press(device: device, .long))
        }
        if presses == 1, let r = releasedAt, now - r >= input.doublePress {
            presses = 0
            releasedAt = nil
            out.append(.press(device: device, .single))
        }
        return out
    }

    private mutating func settled(active: Bool, at t: Duration, chatter: Int) -> [InputEvent] {
        guard kind == .button else { return [.level(device: device, active: active, chatter: chatter, initial: false)] }
        var out: [InputEvent] = chatter > 0 ? [.chatter(device: device, edges: chatter)] : []
        if active {
            pressedAt = t
            longSent = false
            if presses == 1, let r = releasedAt, t - r < input.doublePress { presses = 2 } else { presses = 1 }
            releasedAt = nil
        } else {
            defer { pressedAt = nil }
            if longSent {
                presses = 0
            } else if presses == 2 {
                presses = 0
                out.append(.press(device: device, .double))
            } else {
                releasedAt = t
            }
        }
        return out
    }
}
