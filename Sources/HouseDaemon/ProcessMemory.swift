#if canImport(Glibc)
import CMalloc
#endif

/// The process's heap policy, set once at the start of `housectl`, before it starts threads.
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
}
