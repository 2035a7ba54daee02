extension IntentOutcome {
    /// The resolution of parameter `name`, if the pipeline got to it.
    public func parameter(_ name: String) -> ParameterResolution? { parameters.first { $0.parameter == name } }

    /// The devices the intent resolved to (the `device` parameter), whatever became of it.
    public func resolvedDevices(in configuration: HouseConfiguration) -> [Device] {
        parameter("device")?.values.compactMap { configuration.device(id: DeviceID($0.id)) } ?? []
    }

    /// The `events` record of a command that was refused or could not be done: the intent, what
    /// was resolved, the source, the time and the reason, with outcome `refused` (`failure` for
    /// a command that failed) and no commands.
    public func refusalEvent(at time: WallInstant) -> DonationEvent {
        var resolved: [String: String] = [:]
        for p in parameters where !p.values.isEmpty { resolved[p.parameter] = p.values.map(\.id).joined(separator: ",") }
        return DonationEvent(intent: intent.description, parameters: resolved, source: source, time: time.iso8601UTC,
                             outcome: status == .failed ? .failure : .refused, dialog: dialog, commands: [])
    }
}
