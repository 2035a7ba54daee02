import Foundation

/// CPU time a process has run: this process through `getrusage` (every thread, those that ended
/// too), another from the scheduler's per-thread counters (`/proc/PID/task/*/schedstat`, in
/// nanoseconds, finer than the 10 ms ticks of `/proc/PID/stat`).
enum CPUTime {
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

    /// The threads of process `pid` ("self" for this one): id, name and CPU time so far.
    static func threads(of pid: String) -> [(id: String, name: String, time: Duration)] {
        let tasks = "/proc/\(pid)/task"
        return taskIDs(tasks).compactMap { id in
            guard let time = runTime("\(tasks)/\(id)") else { return nil }
            let name = (try? String(contentsOfFile: "\(tasks)/\(id)/comm", encoding: .utf8)) ?? "?"
            return (id, name.trimmingCharacters(in: .whitespacesAndNewlines), time)
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
        guard let text = try? String(contentsOfFile: task + "/schedstat", encoding: .utf8),
              let first = text.split(separator: " ").first, let nanoseconds = Int64(first) else { return nil }
        return .nanoseconds(nanoseconds)
    }

    /// The CPU time that `body` cost this process and the processes `others`, together.
    static func spent<T>(alsoBy others: [Int32], _ body: () async throws -> T) async rethrows -> (T, Duration) {
        func total() -> Duration { others.reduce(ofThisProcess()) { $0 + of($1) } }
        let before = total()
        let result = try await body()
        return (result, total() - before)
    }

    /// With `BENCH_THREADS` set, what each thread of this process ran from `start` (a `threads`
    /// snapshot) until now, per command, on stderr: which thread a change moved work from.
    static func reportThreads(since start: [(id: String, name: String, time: Duration)], commands: Int, label: String) {
        guard ProcessInfo.processInfo.environment["BENCH_THREADS"] != nil else { return }
        let before = Dictionary(start.map { ($0.id, $0.time) }) { a, _ in a }
        let lines = threads(of: "self").compactMap { thread -> (String, Double)? in
            let perCommand = microseconds(thread.time - (before[thread.id] ?? .zero), per: commands)
            return perCommand >= 0.5 ? ("\(thread.name)[\(thread.id)]", perCommand) : nil
        }.sorted { $0.1 > $1.1 }
        progress("\(label), CPU per command by thread (us): " + lines.map { "\($0.0) \(String(format: "%.1f", $0.1))" }.joined(separator: ", "))
    }
}
