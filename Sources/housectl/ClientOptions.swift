import ArgumentParser
import Foundation
import HouseDaemon

/// `--broker HOST:PORT` and `--timeout`, for the commands that talk to a running controller.
struct ClientOptions: ParsableArguments {
    @Option(help: "The controller's MQTT broker, HOST:PORT (default: the configuration's mqtt section).")
    var broker: String?
    @Option(help: "How long to wait for the controller's answer, e.g. 5s.") var timeout: String = "5s"

    /// Sends a request to the controller and renders its answer (JSON with --json).
    func send(_ body: IntentRequest.Body, configuration: HouseConfiguration, answers: IntentAnswers = .none,
              json: Bool) async -> CommandOutput {
        let reply: IntentReply
        do {
            reply = try await request(body, configuration: configuration, answers: answers)
        } catch {
            return CommandOutput(text: "", exitCode: ExitStatus.noController.rawValue, errors: error.description)
        }
        return render(reply, json: json)
    }

    func request(_ body: IntentRequest.Body, configuration: HouseConfiguration,
                 answers: IntentAnswers = .none) async throws(DaemonError) -> IntentReply {
        guard let wait = DurationParser.parse(timeout), wait > .zero else {
            throw .startup("--timeout expects a duration such as 5s, not '\(timeout)'")
        }
        let client = try DaemonClient(configuration: configuration, broker: broker, timeout: wait)
        return try await client.send(body, answers: answers)
    }

    /// In a phrase of several commands, the one to say again with the answer (the others are done).
    static func again(_ reply: IntentReply) -> String {
        reply.pendingText.map { "housectl say \"\($0)\" " } ?? ""
    }

    func render(_ reply: IntentReply, json: Bool) -> CommandOutput {
        let status = reply.status == .error ? ExitStatus.refused : ExitStatus(reply: reply.status)
        if json { return CommandOutput(text: reply.json, exitCode: status.rawValue) }
        var text = reply.dialog
        if !reply.options.isEmpty {
            text += "\n" + reply.options.map { "  \($0.id): \($0.label)" }.joined(separator: "\n")
            text += "\n(answer with \(Self.again(reply))--choose \(reply.pendingParameter ?? "?")=\(reply.options[0].id))"
        }
        if status == .needsConfirmation { text += "\n(answer yes with \(Self.again(reply))--yes)" }
        return CommandOutput(text: text, exitCode: status.rawValue)
    }
}
