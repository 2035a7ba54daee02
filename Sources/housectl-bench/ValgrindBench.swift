import Foundation

/// Row 9: what a command costs the daemon in instructions (every thread) and heap allocations,
/// against the echo client, under valgrind's callgrind: figures the machine's noise cannot move.
/// Each round runs bench/cpu/callgrind.sh twice, on `housectl serve` and on `housectl-bench echo`,
/// each in a process of its own against its own Debian mosquitto, with the same paced load
/// (`count` QoS 1 commands at `rate` a second after 20 warm-up commands, the instrumentation
/// switched on after the warm-up: start-up is not in the figures).
enum ValgrindBench {
    /// What one run of bench/cpu/callgrind.sh measured, per command.
    struct Figures: Equatable {
        var instructions: Double
        var allocations: Double
    }

    /// The goal: instructions per command, all threads, at most this (`BENCH_BASELINE_INSTRUCTIONS`).
    static let defaultBaseline = 392_735

    static func run(rounds: Int, count: Int, rate: Int, baseline: Int, housectl: String, bench: String, root: String) async -> [BenchRow] {
        let goal = "<= \(baseline)"
        var ours: [Figures] = [], echo: [Figures] = []
        var failures: [String] = []
        // The daemon's and the echo client's runs fail apart: a side that failed is not run again
        // (it would fail the same way), the other's figures are kept (the ratio is then n/a, and
        // why is in the note).
        var daemonFailed = false, echoFailed = false
        for round in 0..<rounds where !(daemonFailed && echoFailed) {
            var line = "valgrind round \(round + 1)/\(rounds):"
            if !daemonFailed {
                do {
                    let o = try measure([housectl], count: count, rate: rate, root: root)
                    ours.append(o)
                    line += " daemon \(Int(o.instructions)) instructions and \(format(o.allocations, 1)) allocations a command;"
                } catch {
                    daemonFailed = true
                    failures.append("the daemon's run: \(error)")
                    line += " the daemon's run failed;"
                }
            }
            if !echoFailed {
                do {
                    let e = try measure(["--echo", bench], count: count, rate: rate, root: root)
                    echo.append(e)
                    line += " echo client \(Int(e.instructions)) and \(format(e.allocations, 1))"
                } catch {
                    echoFailed = true
                    failures.append("the echo client's run: \(error)")
                    line += " the echo client's run failed"
                }
            }
            progress(line)
        }
        if ours.isEmpty {
            return [.unavailable("9. instructions per command", goal: goal, why: failures.first ?? "no run")]
        }
        let instructions = Spread(ours.map(\.instructions)), echoInstructions = Spread(echo.map(\.instructions))
        let allocations = Spread(ours.map(\.allocations)), echoAllocations = Spread(echo.map(\.allocations))
        func ratio(_ a: Spread, _ b: Spread) -> String { b.rounds.isEmpty ? "n/a" : String(format: "%.2fx", a.median / b.median) }
        let failed = failures.isEmpty ? "" : "; failed: " + failures.map { String($0.suffix(400)) }.joined(separator: "; ")
        return [
            BenchRow(name: "9. instructions per command, all threads", ours: whole(instructions), peer: whole(echoInstructions) + " echo client",
                     ratio: ratio(instructions, echoInstructions), goal: goal,
                     met: instructions.median <= Double(baseline) ? "yes" : "NO",
                     note: "9. valgrind --tool=callgrind (bench/cpu/callgrind.sh, once on `housectl serve --gpio sim --no-web`, once with --echo on "
                         + "`housectl-bench echo`, each against its own Debian mosquitto): \(count) QoS 1 ON/OFF commands at \(rate)/s, counted after "
                         + "20 warm-up commands, every thread; the goal is BENCH_BASELINE_INSTRUCTIONS (the same binary repeats within about 2%). "
                         + "Heap allocations: calls to malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign in the same profiles. "
                         + "The echo client: a plain MQTTClient process republishing each set message as a retained QoS 1 state (two hops, "
                         + "like set -> daemon -> state)" + failed),
            BenchRow(name: "9. heap allocations per command, all threads", ours: allocations.text(1), peer: echoAllocations.text(1) + " echo client",
                     ratio: ratio(allocations, echoAllocations), goal: "- (info)", met: "-"),
        ]
    }

    /// One run of bench/cpu/callgrind.sh with `arguments` before COUNT and RATE.
    static func measure(_ arguments: [String], count: Int, rate: Int, root: String) throws -> Figures {
        let r = try PhraseRow.shell(root + "/bench/cpu/callgrind.sh", arguments + [String(count), String(rate)], root: root)
        guard r.status == 0 else {
            throw ChildBroker.StartFailed(description: "bench/cpu/callgrind.sh \(arguments.joined(separator: " ")) exited \(r.status): \(reason(r.output))")
        }
        guard let figures = parse(r.output) else {
            throw ChildBroker.StartFailed(description: "cannot read bench/cpu/callgrind.sh's output: \(r.output.suffix(600))")
        }
        return figures
    }

    /// Why a run failed, in short: valgrind's own error line when it crashed, and the script's last line.
    static func reason(_ output: String) -> String {
        let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let crash = lines.first { $0.contains("VALGRIND INTERNAL ERROR") || $0.contains("the 'impossible' happened") }
        return ([crash, lines.last].compactMap { $0 }).joined(separator: " ... ")
    }

    /// The figures of the "all threads: N instructions a command, A allocations a command" line.
    static func parse(_ output: String) -> Figures? {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("all threads: ") }) else { return nil }
        let words = line.dropFirst("all threads: ".count).split(separator: " ")
        guard words.count >= 7, words[1] == "instructions", words[5] == "allocations",
              let instructions = Double(words[0]), let allocations = Double(words[4]) else { return nil }
        return Figures(instructions: instructions, allocations: allocations)
    }

    /// "393799 (393101-394022)": whole numbers, as the goal is written.
    static func whole(_ s: Spread) -> String {
        guard !s.rounds.isEmpty else { return "n/a" }
        let values = Samples(s.rounds)
        if s.rounds.count == 1 { return String(Int(values.median)) }
        return "\(Int(values.median)) (\(Int(values.min))-\(Int(values.max)))"
    }
}
