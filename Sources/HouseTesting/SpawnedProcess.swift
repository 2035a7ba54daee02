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
    private let exit = Mutex<(status: Int32?, waiters: [@Sendable (Int32) -> Void])>((nil, []))

    /// Starts `executable` with `arguments`. Its stdin reads `input` (a descriptor, duplicated;
    /// nil: /dev/null); its stdout goes to `output` (nil: /dev/null) and its stderr to `errors`
    /// (nil: where stdout goes). Its environment is this process's with `environment` over it,
    /// its working directory `directory` (nil: this process's). The caller closes its own copies
    /// of pipe ends it passed (or the reader never sees the end of the stream).
    public init(
        _ executable: String, _ arguments: [String], output: Int32? = nil, errors: Int32? = nil, input: Int32? = nil,
        environment: [String: String] = [:], directory: String? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input {
            posix_spawn_file_actions_adddup2(&actions, input, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let output {
            posix_spawn_file_actions_adddup2(&actions, output, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if let errors {
            posix_spawn_file_actions_adddup2(&actions, errors, 2)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        _ = Self.closeFrom?(&actions, 3)
        if let directory {
            guard let chdir = Self.changeDirectory else { throw SpawnFailed(executable: executable, errno: ENOSYS) }
            _ = chdir(&actions, directory)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for variable in envp { free(variable) } }
        // The child starts with no signal blocked and every signal's default action, as from a
        // shell: a test's threads block signals (SIGTERM, SIGINT) that the child would inherit,
        // and a mosquitto started so ignores SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard rc == 0 else { throw SpawnFailed(executable: executable, errno: rc) }
        processIdentifier = pid
        Thread { [self] in reap() }.start()
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later), looked up as `closeFrom` is.
    private static let changeDirectory: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32).self)
    }()

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
        for waiter in waiters { waiter(code) }
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
        await withCheckedContinuation { c in whenExited { c.resume(returning: $0) } }
    }

    /// `waitForExit` for synchronous callers: blocks this thread until the child exits.
    @discardableResult
    public func waitUntilExit() -> Int32 {
        let exited = DispatchSemaphore(value: 0)
        let status = Mutex<Int32>(0)
        whenExited { code in
            status.withLock { $0 = code }
            exited.signal()
        }
        exited.wait()
        return status.withLock { $0 }
    }

    /// Calls `then` with the exit status: at once if the child has exited, else from the reaper.
    private func whenExited(_ then: @escaping @Sendable (Int32) -> Void) {
        let status: Int32? = exit.withLock { e in
            if e.status == nil { e.waiters.append(then) }
            return e.status
        }
        if let status { then(status) }
    }
}
