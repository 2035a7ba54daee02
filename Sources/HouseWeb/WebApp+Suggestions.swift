import Foundation
import HouseCore
import HouseDaemon
import HTTPTypes
import Hummingbird

extension WebApp {
    /// What `GET /api/suggestions` answers.
    struct SuggestionsView: Encodable {
        var enabled: Bool
        /// Whether this user may accept and dismiss (a signed-in user).
        var canAnswer: Bool
        /// Why not, when not.
        var why: String?
        /// housectl's file the answers are written to.
        var file: String?
        var suggestions: [HabitSuggestion.Record]
        /// Why there is no list (the configuration on disk does not load, no history).
        var error: String?
    }

    /// What an answer did.
    struct AnswerView: Encodable {
        var id: String
        var answer: String
        var message: String
    }

    /// The suggestions now, from what people did (the state database) up to the controller's now.
    func listSuggestions(_ context: WebContext) -> Response {
        let why = context.session == nil ? SuggestionError.notSignedIn.description : nil
        guard let desk = suggestions else {
            return WebResponses.json(SuggestionsView(enabled: false, canAnswer: false, why: why, file: nil, suggestions: [],
                                                     error: "this controller was not started from a configuration file"))
        }
        var view = SuggestionsView(enabled: true, canAnswer: why == nil, why: why, file: desk.acceptedPath, suggestions: [])
        do throws(SuggestionError) {
            let listing = try currentSuggestions(desk)
            let calendar = HouseCalendar(house: listing.configuration.house)
            view.enabled = listing.configuration.suggestions.enabled
            view.suggestions = listing.suggestions.map { $0.record(calendar: calendar) }
        } catch {
            view.error = error.description
        }
        return WebResponses.json(view)
    }

    /// `POST /api/suggestions/{id}/accept|dismiss`: the answer of a signed-in user, through the
    /// same desk as `housectl suggestions accept|dismiss`; a refusal says why.
    func answer(_ context: WebContext, accept: Bool) -> Response {
        let id = context.parameters.get("id") ?? ""
        guard let desk = suggestions else { return WebResponses.error(.notFound, "this controller was not started from a configuration file") }
        do throws(SuggestionError) {
            guard let user = context.session?.user else { throw .notSignedIn }
            let lines = try historyLines()
            let now = controller.clock.now.date
            let s = accept ? try desk.accept(id, from: lines, now: now) : try desk.dismiss(id, from: lines, now: now)
            controller.logger.notice("web: \(user) \(accept ? "accepted" : "dismissed") suggestion \(s.id) (\(s.kind.rawValue))")
            let message = accept
                ? "Accepted: written to \(desk.acceptedPath). It runs once the controller loads the configuration again (restart housectl serve)."
                : "Dismissed: it is not suggested again while the habit stays the same."
            return WebResponses.json(AnswerView(id: s.id, answer: accept ? "accepted" : "dismissed", message: message))
        } catch {
            controller.logger.warning("web: suggestion \(id) not \(accept ? "accepted" : "dismissed"): \(error)")
            return WebResponses.error(Self.status(error), error.description)
        }
    }

    /// The habits of the suggestions now whose days hold `day`, as marks at their windows that day.
    func habitMarks(on day: LocalDate) -> [DayPicture.HabitMark] {
        guard let desk = suggestions, let listing = try? currentSuggestions(desk) else { return [] }
        let calendar = HouseCalendar(house: listing.configuration.house)
        return listing.suggestions.compactMap { s in
            s.habit.window(on: day, calendar: calendar).map { DayPicture.HabitMark(id: s.id, text: s.text, start: $0.start, end: $0.end) }
        }
    }

    private func currentSuggestions(_ desk: SuggestionDesk) throws(SuggestionError) -> SuggestionDesk.Listing {
        try desk.list(try historyLines(), now: controller.clock.now.date)
    }

    private func historyLines() throws(SuggestionError) -> HabitLines {
        do {
            return try controller.store.habitLines()
        } catch {
            throw .history("\(error)")
        }
    }

    static func status(_ error: SuggestionError) -> HTTPResponse.Status {
        switch error {
        case .notSignedIn: .forbidden
        case .unknown: .notFound
        case .alreadyAccepted, .alreadyDismissed, .off: .conflict
        case .wouldNotLoad: .unprocessableContent
        case .configuration, .history, .cannotWrite: .internalServerError
        }
    }
}
