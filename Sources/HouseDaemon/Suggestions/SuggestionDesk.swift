import Foundation
import HouseCore
import Synchronization

/// The one way suggestions are listed and answered, for `housectl suggestions` and the page:
/// the configuration is read from disk each time (house.yaml and housectl's file beside it, as
/// the last answer left them), the habits from the history it is given, and an answer is written
/// to housectl's file (`AcceptedFile`) only when the configuration it makes loads. Nothing is
/// switched here: an accepted routine runs once the controller loads the configuration again.
public struct SuggestionDesk: Sendable {
    public let configPath: String
    public let devicesDirectory: String?
    /// housectl's file beside house.yaml.
    public let acceptedPath: String

    public init(configPath: String, devicesDirectory: String? = nil) {
        self.configPath = configPath
        self.devicesDirectory = devicesDirectory
        acceptedPath = AcceptedFile.path(forConfigAt: configPath)
    }

    /// What is suggested now.
    public struct Listing: Sendable {
        public var configuration: HouseConfiguration
        public var history: HabitHistory
        /// Where the history was read.
        public var source: String
        /// The end of the period looked at; nil when the history is empty.
        public var now: Date?
        /// The suggestions not answered yet.
        public var suggestions: [HabitSuggestion]
    }

    /// The configuration on disk now.
    public func configuration() throws(SuggestionError) -> HouseConfiguration {
        do {
            return try ConfigurationLoader(devicesDirectory: devicesDirectory).load(path: configPath)
        } catch {
            throw .configuration(error)
        }
    }

    /// The suggestions the history in `lines` makes up to `now` (nil: its last event), those
    /// answered left out.
    public func list(_ lines: HabitLines, now: Date?) throws(SuggestionError) -> Listing {
        try listing(lines, now: now, answered: false)
    }

    /// Accepts the suggestion `id` (one the same history makes up to `now`): what it suggests is
    /// added to housectl's file, and its id kept there as accepted.
    @discardableResult
    public func accept(_ id: String, from lines: HabitLines, now: Date?) throws(SuggestionError) -> HabitSuggestion {
        try Self.writing.withLock { _ throws(SuggestionError) in
            let (suggestion, configuration) = try find(id, in: lines, now: now)
            if configuration.suggestions.answers.accepted.contains(id) { throw .alreadyAccepted(id, file: acceptedPath) }
            let house: String
            do {
                house = try String(contentsOfFile: configPath, encoding: .utf8)
            } catch {
                throw .configuration(ConfigurationError(diagnostics: [ConfigDiagnostic(file: configPath, line: 1, column: 1, message: "cannot read the configuration: \(error.localizedDescription)")]))
            }
            let existing = try current()
            let text: String
            do throws(ConfigurationError) {
                text = try AcceptedFile.accepting(suggestion, file: existing, house: house, name: acceptedPath)
            } catch {
                throw .configuration(error)
            }
            try save(text, checking: id)
            return suggestion
        }
    }

    /// Dismisses the suggestion `id`: it is not offered again while its habit stays the same.
    @discardableResult
    public func dismiss(_ id: String, from lines: HabitLines, now: Date?) throws(SuggestionError) -> HabitSuggestion {
        try Self.writing.withLock { _ throws(SuggestionError) in
            let (suggestion, configuration) = try find(id, in: lines, now: now)
            if configuration.suggestions.answers.accepted.contains(id) { throw .alreadyAccepted(id, file: acceptedPath) }
            if configuration.suggestions.answers.dismissed.contains(id) { throw .alreadyDismissed(id) }
            let existing = try current()
            let text: String
            do throws(ConfigurationError) {
                text = try AcceptedFile.dismissing(id, file: existing, name: acceptedPath)
            } catch {
                throw .configuration(error)
            }
            try save(text, checking: id)
            return suggestion
        }
    }

    /// One answer at a time in this process (the page may be sent two at once).
    private static let writing = Mutex(())

    private func listing(_ lines: HabitLines, now: Date?, answered: Bool) throws(SuggestionError) -> Listing {
        let configuration = try configuration()
        let history = HabitHistory.read(lines.text, file: lines.source, configuration: configuration)
        let end = now ?? history.lastTime
        guard configuration.suggestions.enabled || answered else {
            return Listing(configuration: configuration, history: history, source: lines.source, now: end, suggestions: [])
        }
        let suggestions = end.map { configuration.habitSuggestions(from: history.events, now: $0, answered: answered) } ?? []
        return Listing(configuration: configuration, history: history, source: lines.source, now: end, suggestions: suggestions)
    }

    private func find(_ id: String, in lines: HabitLines, now: Date?) throws(SuggestionError) -> (HabitSuggestion, HouseConfiguration) {
        let all = try listing(lines, now: now, answered: true)
        guard all.configuration.suggestions.enabled else { throw .off }
        guard let suggestion = all.suggestions.first(where: { $0.id == id }) else {
            throw .unknown(id, current: all.suggestions.map(\.id).filter { !all.configuration.suggestions.answers.answered($0) })
        }
        return (suggestion, all.configuration)
    }

    /// housectl's file now; nil when there is none.
    private func current() throws(SuggestionError) -> String? {
        guard FileManager.default.fileExists(atPath: acceptedPath) else { return nil }
        do {
            return try String(contentsOfFile: acceptedPath, encoding: .utf8)
        } catch {
            throw .cannotWrite(path: acceptedPath, reason: "cannot read it: \(error.localizedDescription)")
        }
    }

    /// Writes `text` as housectl's file once the configuration with it loads.
    private func save(_ text: String, checking id: String) throws(SuggestionError) {
        do {
            _ = try ConfigurationLoader(devicesDirectory: devicesDirectory).load(path: configPath, accepted: (text, acceptedPath))
        } catch {
            throw .wouldNotLoad(id, error)
        }
        do {
            try WholeFile.write(Array(text.utf8), to: acceptedPath, permissions: .keptOr(0o644))
        } catch {
            guard case .file(_, let reason) = error else { throw .cannotWrite(path: acceptedPath, reason: "\(error)") }
            throw .cannotWrite(path: acceptedPath, reason: reason)
        }
    }
}
