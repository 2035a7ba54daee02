import ArgumentParser
import Foundation
import HouseCore

/// `housectl-bench`: the benchmarks. Without a subcommand, `table` (what `make bench` runs).
@main
struct HousectlBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "housectl-bench",
        abstract: "housectl's benchmarks against their peers (make bench).",
        subcommands: [TableCommand.self, PhraseBenchCommand.self, SchedulerBenchCommand.self, EchoCommand.self],
        defaultSubcommand: TableCommand.self
    )
}

/// `housectl-bench [table]`: every benchmark row against its peer in one run, one table on stdout
/// (progress on stderr). Run it from the repository root (`make bench` / bench/run.sh).
///
/// Environment: `BENCH_ROUNDS` (default 5), `BENCH_ONLY` (e.g. "1,4": rows to run),
/// `BENCH_SAMPLES` and `BENCH_COMMANDS` (rows 1 and 2 per round: default 2,000 and 10,000, at
/// least 100 each; the commands an even count, ON/OFF pairs),
/// `BENCH_BASELINE_INSTRUCTIONS` (row 9's goal, instructions per command; default 392,735),
/// `BENCH_VALGRIND_ROUNDS` (row 9's rounds; default the rounds, at most 3),
/// `BENCH_VALGRIND_COMMANDS` and `BENCH_VALGRIND_RATE` (row 9: default 400 at 40/s, the load the
/// baseline was measured with),
/// `HOUSECTL` (the release `housectl` binary; default: next to this executable),
/// `BENCH_VENV` (default bench/.venv, with hassil and amqtt).
struct TableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "table",
        abstract: "Run every benchmark row (BENCH_ROUNDS, BENCH_ONLY) and print one table."
    )

    func run() async {
        let env = ProcessInfo.processInfo.environment
        let root = FileManager.default.currentDirectoryPath
        let rounds = max(1, Int(env["BENCH_ROUNDS"] ?? "") ?? 5)
        let only = Set((env["BENCH_ONLY"] ?? "1,2,9,3,4,5,6,8,10,11").split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) })
        let selfDir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
        let housectl = env["HOUSECTL"] ?? selfDir + "/housectl"
        let venv = env["BENCH_VENV"] ?? root + "/bench/.venv"
        guard FileManager.default.fileExists(atPath: root + "/config/house.yaml") else {
            FileHandle.standardError.write(Data("housectl-bench: run it from the repository root (no config/house.yaml in \(root))\n".utf8))
            Foundation.exit(2)
        }
        guard FileManager.default.isExecutableFile(atPath: housectl) else {
            FileHandle.standardError.write(Data("housectl-bench: no housectl binary at \(housectl) (build it: scripts/release-build.sh --product housectl, or set HOUSECTL)\n".utf8))
            Foundation.exit(2)
        }
        let loadBefore = Self.loadAverage()
        progress("\(ProcessInfo.processInfo.activeProcessorCount) cores, load \(loadBefore), \(rounds) rounds, rows \(only.sorted())")

        var rows: [BenchRow] = []
        if only.contains(1) || only.contains(2) {
            do {
                // Rows 1 and 2 take their goals from a ratio per round: 2,000 samples make a round's p99
                // the 20th slowest (with 500 it was the 5th, and moved 0.2x from run to run).
                let samples = max(100, Int(env["BENCH_SAMPLES"] ?? "") ?? 2000)
                let commands = max(100, Int(env["BENCH_COMMANDS"] ?? "") ?? 10_000) / 2 * 2
                rows += try await ControllerBench.run(rounds: rounds, samples: samples, commands: commands, root: root)
            } catch {
                rows.append(.unavailable("1./2. controller", goal: ">= 0.8x", why: "\(error)"))
            }
        }
        if only.contains(9) {
            let baseline = Int(env["BENCH_BASELINE_INSTRUCTIONS"] ?? "") ?? ValgrindBench.defaultBaseline
            let valgrindRounds = max(1, Int(env["BENCH_VALGRIND_ROUNDS"] ?? "") ?? min(rounds, 3))
            let count = max(2, Int(env["BENCH_VALGRIND_COMMANDS"] ?? "") ?? 400) / 2 * 2
            let rate = max(1, Int(env["BENCH_VALGRIND_RATE"] ?? "") ?? 40)
            rows += await ValgrindBench.run(rounds: valgrindRounds, count: count, rate: rate, baseline: baseline,
                                            housectl: housectl, bench: selfDir + "/housectl-bench", root: root)
        }
        if only.contains(3) {
            rows += await PhraseRow.run(rounds: min(rounds, 3), secondsPerSide: 2, bench: selfDir + "/housectl-bench", root: root)
        }
        if only.contains(4) {
            rows += await BrokerBench.run(rounds: rounds, count: 40_000, samples: 500, housectl: housectl, venv: venv)
        }
        if only.contains(5) {
            // Once, before the first daemon: the binary as a daemon finds it after a boot (row 5's
            // first start-to-ready and its VmHWM figures).
            if let failure = BinaryPages.evict(housectl) { progress("the binary's pages stay cached: \(failure)") }
            rows += await FootprintBench.run(rounds: rounds, commands: 10_000, housectl: housectl, root: root)
        }
        if only.contains(8) {
            rows += await WebBench.run(rounds: min(rounds, 3), loads: 100, updates: 200, housectl: housectl, root: root)
        }
        if only.contains(11) {
            rows += await HomeKitBench.run(rounds: min(rounds, 3), samples: 300, housectl: housectl, root: root)
        }
        if only.contains(6) {
            var times: [Double] = []
            var runs = 0
            for _ in 0..<rounds {
                let r = SchedulerBenchmark.run(routineCount: 1000, year: 2026)
                times.append((r.startDuration + r.yearDuration).inMilliseconds)
                runs = r.runs
            }
            let t = Spread(times)
            rows.append(BenchRow(name: "6. scheduler, 1,000 routines x 1 year (ms)", ours: t.text(1), peer: "-", ratio: "-", goal: "-", met: "-",
                                 note: "6. SchedulerBenchmark.run: \(runs) runs planned and taken over 2026 (Europe/London), "
                                     + String(format: "%.2f us per run", t.median * 1000 / Double(max(runs, 1)))))
            progress("scheduler done")
        }
        if only.contains(10) {
            do {
                var ours: [Double] = [], peer: [Double] = []
                var last: HabitBenchmark.Result?
                for _ in 0..<rounds {
                    let r = try HabitBenchmark.run()
                    ours.append(r.analysis.inMilliseconds)
                    peer.append(r.scan.inMilliseconds)
                    last = r
                }
                let o = Spread(ours), p = Spread(peer)
                rows.append(BenchRow(name: "10. habits, 1 year x 50 devices (ms)", ours: o.text(0), peer: p.text(1) + " SQL scan",
                                     ratio: String(format: "%.1fx", o.median / max(p.median, 0.001)), goal: "<= 2000 ms",
                                     met: o.median <= 2000 ? "yes" : "NO",
                                     note: "10. HabitBenchmark.run: \(last?.events ?? 0) events read as JSON lines, habits found and "
                                         + "\(last?.suggestions ?? 0) suggestions made; peer: SELECT of the same rows from in-memory SQLite (GRDB)"))
            } catch {
                rows.append(.unavailable("10. habits", goal: "<= 2000 ms", why: "\(error)"))
            }
            progress("habits done")
        }

        let date = ISO8601DateFormatter().string(from: Date())
        print("housectl benchmarks, \(date): \(ProcessInfo.processInfo.activeProcessorCount) cores, "
              + "load \(loadBefore) at start, \(Self.loadAverage()) at end; \(rounds) rounds: median (min-max)")
        print("")
        print(renderTable(rows))
    }

    /// The first three fields of /proc/loadavg.
    static func loadAverage() -> String {
        guard let s = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "?" }
        return s.split(separator: " ").prefix(3).joined(separator: " ")
    }
}
