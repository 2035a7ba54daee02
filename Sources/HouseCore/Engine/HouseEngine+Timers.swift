/// The engine's timers: the relays' (pulse ends, max-on, deferred switches), the end of
/// temporary modes, openers' deadlines, the energy figure after switches and the minute's checks.
/// The timer service sleeps until `nextWake` and puts a `.tick` on the bus; every command
/// carries out first what is due by its time.
extension HouseEngine {
    /// When the next timer is due; nil: none.
    public var nextWake: WallInstant? {
        var next = nextMinute
        for candidate in [relays?.nextDeadline, nextOpenerDeadline, modeExpiry, energyDue] {
            if let candidate, candidate < next { next = candidate }
        }
        return next
    }

    /// Carries out every timer due by now, earliest kind first: what the relays do on time, the
    /// presses that ran out, the modes that ended, then the figures.
    func fireDueTimers() {
        let now = clock.now
        if let due = relays?.nextDeadline, due <= now {
            var events: [RelayEvent] = []
            relays!.fireDueTimers(at: now, events: &events)
            relayEvents(events)
        }
        if let due = nextOpenerDeadline, due <= now { checkOpeners() }
        if let due = modeExpiry, due <= now { revertExpiredModes() }
        if let due = energyDue, due <= now {
            energyDue = nil
            publishEnergy()
        }
        if nextMinute <= now {
            nextMinute = now.advanced(by: Self.minute)
            publishEnergy(perDevice: true)
            checkStaleSensors()
            effects.records.append(.checkpoint(now.date))
            let windowStart = now.advanced(by: .zero - Self.commandWindow)
            seenCommands = seenCommands.filter { $0.value >= windowStart }
        }
    }
}
