#if canImport(Glibc)
import CProcessMemory
#endif
import Foundation
import Logging
import Synchronization

/// The process's memory policy: the heap's arenas, set once at the start of `housectl` before it
/// starts threads; the start-up pages given back between the start-up's stages and once the
/// daemon is ready; Foundation's default zone, which keeps ICU's zone tables out.
///
/// glibc gives every thread that allocates while another holds the heap's lock an arena of its
/// own (up to 8 per core), and a burst of commands then leaves free memory scattered over all of
/// them: the daemon's threads (the MQTT loop, NIO's event loop, the cooperative pool, SQLite's
/// writer) held 3-4 MB more at the peak of a burst of 10,000 commands than with one arena
/// (docs/BENCHMARKS.md, "The code the daemon runs, by section"). Small allocations still come
/// from each thread's own cache (tcache) without taking the lock.
public enum ProcessMemory {
    /// Makes every thread allocate from the main arena (`mallopt(M_ARENA_MAX, 1)`), unless
    /// `MALLOC_ARENA_MAX` or `GLIBC_TUNABLES` in the environment already says how many.
    /// Returns whether it changed the policy. Does nothing where the C library is not glibc.
    @discardableResult
    public static func useOneMallocArena(environment: [String: String]) -> Bool {
        #if canImport(Glibc)
        if environment["MALLOC_ARENA_MAX"] != nil || environment["GLIBC_TUNABLES"]?.contains("arena_max") == true {
            return false
        }
        return mallopt(M_ARENA_MAX, 1) == 1
        #else
        return false
        #endif
    }

    /// Unmaps what the daemon needs no more once it is ready. The release link puts the code the
    /// daemon runs first, the code a burst of commands runs ahead of the code only start-up and
    /// shutdown run, and marks where the second part starts (`linker/housectl-hot.ld`, `make
    /// order-file`). From there to the end of the code (the start-up part and the code no list
    /// names), and the read-only data of the program (`.rodata` with the time zone data ICU loads
    /// for the page's web server, Swift's metadata) and of its shared libraries (the symbol and
    /// relocation tables the loader read: 0.8 MB of libcrypto's) and the code of those libraries
    /// (what start-up ran of libc, SQLite, the loader, OpenSSL), are clean file-backed pages:
    /// the kernel keeps them in the page cache as long as it likes, and what runs or is read
    /// again (a config reload, the shutdown, the strings of a reply) faults back in. Returns the
    /// bytes unmapped (0 in a link without the list, a debug build, which unmaps nothing), or why
    /// `madvise` refused.
    public static func releaseStartUpPages() -> Result<Int, StartUpPagesError> {
        #if canImport(Glibc)
        let result = housectl_release_startup_pages()
        return result >= 0 ? .success(result) : .failure(StartUpPagesError(errno: Int32(-result)))
        #else
        return .success(0)
        #endif
    }

    /// Makes Foundation's default time zone (`NSTimeZone.default`, the zone of a new `Calendar`)
    /// GMT. On Linux a named zone of Foundation (the process's own, which is the default unless
    /// set) is ICU's, and the first one maps ICU's time-zone tables
    /// from the binary's read-only data: 0.6-0.8 MB resident, for nothing the daemon shows. The
    /// daemon never tells the time through Foundation's zones (the house's time is `HouseZone`'s,
    /// read from the tz database), but Hummingbird's `Date` header builds a Gregorian `Calendar`,
    /// which asks for the default zone before it sets GMT. GMT is Foundation's own zone, without
    /// ICU. Log lines are unaffected (the C library's `localtime_r` and `TZ`). Called by
    /// `housectl serve` before anything asks for a zone.
    public static func useGMTAsFoundationDefaultZone() {
        NSTimeZone.default = .gmt
    }

    /// `releaseStartUpPages()` at a stage of the start-up (`when`: after the configuration is
    /// read, before the services start, at ready), logged: what one stage ran and read is given
    /// back before the next faults in its own, so the start-up's peak is its largest stage, not
    /// their sum (the page on: 21.5-21.9 MB -> 19.1-19.4 MB with the GMT default zone).
    public static func releaseStartUpPages(_ when: String, logger: Logger) {
        switch releaseStartUpPages() {
        case .success(let bytes) where bytes > 0: logger.debug("start-up pages unmapped \(when): \(bytes / 1024) kB")
        case .success: break
        case .failure(let error): logger.warning("\(when): \(error)")
        }
    }

    /// Whether a page's first visit has ended (`releaseAfterFirstPageVisit`).
    private static let pageVisited = Atomic(false)

    /// A page's first visit is the web server's start-up stage: its first connections, requests
    /// and live stream run code and read data once (NIO's and Hummingbird's set-up, Swift's first
    /// lookups of their types' conformances) that later visits do not. The web app calls this
    /// once the first visit's live stream has sent its first state (a browser's last step: the
    /// page, its script, the state, the stream); the first call gives back what the visit ran
    /// and read as the other stages do, later calls do nothing.
    public static func releaseAfterFirstPageVisit(logger: Logger) {
        guard !pageVisited.exchange(true, ordering: .relaxed) else { return }
        releaseStartUpPages("after the page's first visit", logger: logger)
    }

    /// `madvise` refused to unmap the start-up pages.
    public struct StartUpPagesError: Error, CustomStringConvertible {
        public var errno: Int32
        public var description: String { "madvise(MADV_DONTNEED) of the start-up pages failed: errno \(errno)" }
    }
}
