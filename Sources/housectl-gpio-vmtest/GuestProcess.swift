import Glibc

/// A program the checks start in the VM (libgpiod's `gpioset`), with `posix_spawn` and `waitpid`
/// directly: Foundation's `Process` needs a CFSocket wake-up pair, which the guest's minimal
/// system once failed to create ("Could not create wakeup socket pair"), and its
/// `waitUntilExit` then never returned. Every wait here is bounded.
final class GuestProcess {
    /// How it ended, once it has.
    enum Ending: Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    let pid: pid_t
    private(set) var ending: Ending?

    /// Starts `path` with `arguments` (the program's name is `path`'s last component).
    init(path: String, arguments: [String]) throws(VMCheckFailure) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let argv: [UnsafeMutablePointer<CChar>?] = ([name] + arguments).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, nil, nil, argv, environ)
        guard result == 0 else { throw VMCheckFailure("posix_spawn \(path): \(String(cString: strerror(result)))") }
        self.pid = pid
    }

    /// Whether it still runs (reaps it when it has ended).
    var isRunning: Bool {
        if ending != nil { return false }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return true }
        ending = Self.ending(of: status)
        return false
    }

    /// Sends `signal`, then waits at most `timeout` for the end; SIGKILL and a reap if it has not
    /// ended by then. Returns how it ended on `signal`, nil when it had to be killed.
    @discardableResult
    func stop(with signal: Int32 = SIGTERM, timeout: Duration = .seconds(5)) -> Ending? {
        if isRunning { kill(pid, signal) }
        if let ending = waitForEnd(timeout: timeout) { return ending }
        kill(pid, SIGKILL)
        _ = waitForEnd(timeout: .seconds(5))
        return nil
    }

    private func waitForEnd(timeout: Duration) -> Ending? {
        let deadline = ContinuousClock.now + timeout
        while isRunning && ContinuousClock.now < deadline { usleep(5_000) }
        return ending
    }

    private static func ending(of status: Int32) -> Ending {
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }
}
