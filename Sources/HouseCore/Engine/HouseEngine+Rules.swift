/// The rules: what fires them, on which node, and the guard against loops.
extension HouseEngine {
    /// Runs the rules `trigger` fires, each through the one path with source `rule`.
    func fireRules(for trigger: RuleBook.Trigger, depth: Int = 0) {
        guard depth <= RuleBook.maximumDepth else {
            effects.log(.error, "rule chain stopped at depth \(depth) on \(trigger): rules trigger each other in a loop")
            return
        }
        let now = clock.now
        for rule in rules.matching(trigger) {
            switch rules.admit(rule.id, at: now) {
            case .allowed: break
            case .stoppedNow:
                effects.log(.error, "rule \(rule.id) stopped: it fired \(RuleBook.burstLimit) times within \(RuleBook.burstWindow) (a loop?); restart housectl to re-enable it")
                continue
            case .stopped:
                continue
            }
            effects.log(.info, "rule \(rule.id) fired on \(trigger)")
            carryOut(rule.intent.intent, source: .rule, ruleDepth: depth)
        }
    }

    /// Rules for a device's state change. Only the coordinator runs rules, so that a rule fires
    /// once however many nodes see the change; the rules of an input (a contact, a motion sensor)
    /// run on the node it is wired to, which hears it first and needs no broker for it.
    func deviceStateChanged(_ device: DeviceID, to state: DeviceState) {
        if let owner = configuration.device(id: device)?.input?.node {
            guard owner == node || node == nil else { return }
        } else {
            guard acting else { return }
        }
        fireRules(for: .deviceState(device, state))
    }

    /// The MQTT topic filters the rules listen to.
    public nonisolated var ruleTopics: [String] { RuleBook(rules: configuration.rules).topicFilters }
}
