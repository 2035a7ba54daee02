import Foundation

/// CPU time a process has run: this process through `getrusage` (every thread, those that ended
/// too), another from the scheduler's per-thread counters (`/proc/PID/task/*/schedstat`, in
/// nanoseconds, finer than the 10 ms ticks of `/proc/PID/stat`).
enum CPUTime {
    /// One thread at one moment: its id and name, the CPU time it has run and how many times the
    /// scheduler put it on a CPU (each wake-up at least once).
    typealias ThreadSnapshot = (id: String, name: String, time: Duration, runs: Int)

    /// The CPU time of this process so far.
    static func ofThisProcess() -> Duration {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return .seconds(Int64(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec))
            + .microseconds(Int64(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec))
    }

    /// The CPU time of every thread of process `pid` so far; zero when the process is gone.
    static func of(_ pid: Int32) -> Duration {
        let tasks = "/proc/\(pid)/task"
        return taskIDs(tasks).reduce(.zero) { $0 + (runTime("\(tasks)/\($1)") ?? .zero) }
    }

    /// The threads of process `pid` ("self" for this one), as they are now.
    static func threads(of pid: String) -> [ThreadSnapshot] {
        let tasks = "/proc/\(pid)/task"
        return taskIDs(tasks).compactMap { id in
            guard let stat = schedstat("\(tasks)/\(id)") else { return nil }
            let name = (try? String(contentsOfFile: "\(tasks)/\(id)/comm", encoding: .utf8)) ?? "?"
            return (id, name.trimmingCharacters(in: .whitespacesAndNewlines), stat.time, stat.runs)
        }
    }

    /// Microseconds per command of `time` spent on `commands` commands.
    static func microseconds(_ time: Duration, per commands: Int) -> Double {
        time / .microseconds(1) / Double(commands)
    }

    private static func taskIDs(_ tasks: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
    }

    /// The time thread `task` (its /proc directory) has run, from its `schedstat`; nil when gone.
    private static func runTime(_ task: String) -> Duration? {
        schedstat(task)?.time
    }

    /// Thread `task`'s `schedstat`: the time it ran, and how many times it was put on a CPU.
    private static func schedstat(_ task: String) -> (time: Duration, runs: Int)? {
        guard let text = try? String(contentsOfFile: task + "/schedstat", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count >= 3, let nanoseconds = Int64(fields[0]),
              let runs = Int(fields[2].trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        return (.nanoseconds(nanoseconds), runs)
    }

    /// The CPU time that `body` cost this process and the processes `others`, together.
    static func spent<T>(alsoBy others: [Int32], _ body: () async throws -> T) async rethrows -> (T, Duration) {
        func total() -> Duration { others.reduce(ofThisProcess()) { $0 + of($1) } }
        let before = total()
        let result = try await body()
        return (result, total() - before)
    }

    /// With `BENCH_THREADS` set, what each thread of this process ran from `start` (a `threads`
    /// snapshot) until now, per command, on stderr: which thread a change moved work from, and
    /// how often each thread was put on a CPU per command (its sleeps and wake-ups).
    static func reportThreads(since start: [ThreadSnapshot], commands: Int, label: String) {
        guard ProcessInfo.processInfo.environment["BENCH_THREADS"] != nil else { return }
        let before = Dictionary(start.map { ($0.id, $0) }) { a, _ in a }
        let lines = threads(of: "self").compactMap { thread -> (String, Double, Double)? in
            let earlier = before[thread.id]
            let perCommand = microseconds(thread.time - (earlier?.time ?? .zero), per: commands)
            let runs = Double(thread.runs - (earlier?.runs ?? 0)) / Double(commands)
            return perCommand >= 0.5 ? ("\(thread.name)[\(thread.id)]", perCommand, runs) : nil
        }.sorted { $0.1 > $1.1 }
        let text = lines.map { "\($0.0) \(String(format: "%.1f", $0.1)) (\(String(format: "%.2f", $0.2)) runs)" }
        progress("\(label), CPU per command by thread (us), and times on a CPU per command: " + text.joined(separator: ", "))
    }
}
