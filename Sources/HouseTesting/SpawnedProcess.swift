import Foundation
import Synchronization

/// A program the test fixtures start (mosquitto, openssl, mosquitto_passwd), spawned with
/// `posix_spawn`, its exit awaited on a thread of its own (`waitpid`), not polled.
///
/// Not Foundation's `Process`: on Linux its `run()` (swift-corelibs-foundation 6.3) finds the
/// highest open descriptor by copying each /proc/self/fd entry's whole 256-byte name field, which
/// reads past the end of glibc's directory buffer once the listing fills it (about 1,350
/// descriptors open, as hundreds of tests at once hold) and now and then crashes the process
/// with SIGSEGV (fixed upstream in swift-corelibs-foundation#5472). Here the child closes every
/// descriptor above 2 itself (`posix_spawn_file_actions_addclosefrom_np`), so it inherits none of
/// the test process's sockets either.
public final class SpawnedProcess: Sendable {
    /// Thrown when the program cannot be started.
    public struct SpawnFailed: Error, CustomStringConvertible {
        public let executable: String
        public let errno: Int32
        public var description: String { "cannot start \(executable): \(String(cString: strerror(errno))) (errno \(errno))" }

        public init(executable: String, errno: Int32) {
            self.executable = executable
            self.errno = errno
        }
    }

    /// The child's process id.
    public let processIdentifier: pid_t
    /// The exit status once known (128 + the signal for a killed child), and who waits for it.
    private let exit = Mutex<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))

    /// Starts `executable` with `arguments` and this process's environment; its stdin reads
    /// /dev/null, its stdout and stderr go to `output` (a descriptor, duplicated; nil: /dev/null).
    public init(_ executable: String, _ arguments: [String], output: Int32? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let output {
            posix_spawn_file_actions_adddup2(&actions, output, 1)
            posix_spawn_file_actions_adddup2(&actions, output, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        _ = Self.closeFrom?(&actions, 3)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard rc == 0 else { throw SpawnFailed(executable: executable, errno: rc) }
        processIdentifier = pid
        Thread { [self] in reap() }.start()
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run time:
    /// Swift's Glibc module does not declare it.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
    }()

    /// The reaper thread: waits for the child's exit and wakes whoever waits for it.
    private func reap() {
        var status: Int32 = 0
        while waitpid(processIdentifier, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG by hand: Swift does not import the macros.
        let signal = status & 0x7F
        let code = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        let waiters = exit.withLock { e in
            e.status = code
            defer { e.waiters.removeAll() }
            return e.waiters
        }
        for waiter in waiters { waiter.resume(returning: code) }
    }

    /// Whether the child has not exited yet.
    public var isRunning: Bool { exit.withLock { $0.status == nil } }

    /// Sends `signal` to the child while it runs.
    public func send(_ signal: Int32) {
        exit.withLock { e in
            if e.status == nil { _ = kill(processIdentifier, signal) }
        }
    }

    /// Waits until the child exits; returns its exit status (128 + the signal for a killed child).
    @discardableResult
    public func waitForExit() async -> Int32 {
        await withCheckedContinuation { c in
            let status: Int32? = exit.withLock { e in
                if e.status == nil { e.waiters.append(c) }
                return e.status
            }
            if let status { c.resume(returning: status) }
        }
    }
}
