import Foundation
import HouseCore
import HouseTesting

/// Row 3: bench/phrases/run.sh (ours against hassil on the same templates and sentences): our
/// config/phrases.yaml, then the community grammar's English file.
enum PhraseRow {
    /// - Parameter bench: this `housectl-bench` binary, whose `phrase-bench` subcommand the script runs.
    static func run(rounds: Int, secondsPerSide: Int, bench: String, root: String) async -> [BenchRow] {
        let goal = ">= 100x"
        guard let setup = try? shell(root + "/Tests/Grammar/setup-venv.sh", [], root: root), setup.status == 0 else {
            return [.unavailable("3. phrase matching", goal: goal,
                                 why: "hassil could not be installed into .cache/grammar-venv (Tests/Grammar/setup-venv.sh; no network?)")]
        }
        var ours: [Double] = [], peer: [Double] = [], ratios: [Double] = [], version = "?"
        var grammarOurs: [Double] = [], grammarPeer: [Double] = [], grammarRatios: [Double] = [], grammarAgreement = ""
        var ourP99: [Double] = [], peerP99: [Double] = [], p99Ratios: [Double] = []
        var agreement = ""
        for round in 0..<rounds {
            do {
                let r = try shell(root + "/bench/phrases/run.sh", [bench], root: root,
                                  environment: ["SECONDS_PER_SIDE": String(secondsPerSide)])
                guard r.status == 0 else { throw ChildBroker.StartFailed(description: "bench/phrases/run.sh exited \(r.status): \(r.output.suffix(500))") }
                let sections = r.output.components(separatedBy: "== community grammar en")
                let phrasesPart = sections[0], grammarPart = sections.count > 1 ? sections[1] : ""
                func number(after prefix: String, in text: String = phrasesPart) -> Double? {
                    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
                    let rest = line.dropFirst(prefix.count).split(separator: " ").first ?? ""
                    return Double(rest)
                }
                if let o = number(after: "housectl: best pass ", in: grammarPart), let h = number(after: "hassil:   best pass ", in: grammarPart) {
                    grammarOurs.append(o); grammarPeer.append(h); grammarRatios.append(o / h)
                    if let a = grammarPart.split(separator: "\n").first(where: { $0.hasPrefix("answers:") }) { grammarAgreement = String(a) }
                }
                guard let o = number(after: "housectl: best pass "), let h = number(after: "hassil:   best pass ") else {
                    throw ChildBroker.StartFailed(description: "cannot parse bench/phrases/run.sh output: \(r.output.suffix(500))")
                }
                if let v = r.output.split(separator: "\n").first(where: { $0.hasPrefix("hassil version ") }) { version = String(v.dropFirst(15)) }
                if let a = phrasesPart.split(separator: "\n").first(where: { $0.hasPrefix("answers:") }) { agreement = String(a) }
                ours.append(o); peer.append(h); ratios.append(o / h)
                if let op = number(after: "housectl: p99 per sentence "), let hp = number(after: "hassil:   p99 per sentence "), hp > 0 {
                    ourP99.append(op); peerP99.append(hp); p99Ratios.append(op / hp)
                }
                progress("phrases round \(round + 1)/\(rounds): \(Int(o)) vs hassil \(Int(h)) sentences/s (\(String(format: "%.1f", o / h))x)")
            } catch {
                return [.unavailable("3. phrase matching", goal: goal, why: "\(error)")]
            }
        }
        let ratio = Spread(ratios)
        var rows = [BenchRow(name: "3. phrase matching (sentences/s)", ours: Spread(ours).text(0), peer: Spread(peer).text(0) + " hassil \(version)",
                             ratio: ratio.text(1, unit: "x"), goal: goal, met: ratio.median >= 100 ? "yes" : "NO",
                             note: "3. best pass against best pass, \(secondsPerSide) s per side per round; \(agreement)")]
        if !grammarRatios.isEmpty {
            let g = Spread(grammarRatios)
            rows.append(BenchRow(name: "3. phrase matching, community grammar en (sentences/s)", ours: Spread(grammarOurs).text(0),
                                 peer: Spread(grammarPeer).text(0) + " hassil \(version)", ratio: g.text(1, unit: "x"), goal: goal,
                                 met: g.median >= 100 ? "yes" : "NO",
                                 note: "3. the same for home-assistant-intents \(CommunityGrammar.version)'s en.json read by both as it is (ours with the grammar alone, hassil as Assist reads: recognize_best with the house's lists); \(grammarAgreement)"))
        }
        if !p99Ratios.isEmpty {
            rows.append(BenchRow(name: "3. phrase p99 per sentence (us)", ours: Spread(ourP99).text(1), peer: Spread(peerP99).text(1) + " hassil",
                                 ratio: Spread(p99Ratios).text(3, unit: "x"), goal: "-", met: "-",
                                 note: "3. p99: each sentence timed alone, fastest of 3 passes, on both sides"))
        }
        return rows
    }

    /// Runs a command to completion; stdout and stderr together.
    static func shell(_ executable: String, _ arguments: [String], root: String,
                      environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        try CapturedProcess.run(executable, arguments, environment: environment, directory: root)
    }
}
