#if canImport(Glibc)
import Glibc
#endif

/// The process's heap policy, set once at the start of `housectl` before it starts threads.
public enum ProcessMemory {
    /// Makes every thread allocate from the main arena (`mallopt(M_ARENA_MAX, 1)`), unless
    /// `MALLOC_ARENA_MAX` or `GLIBC_TUNABLES` in the environment already says how many.
    /// Returns whether it changed the policy. Does nothing where the C library is not glibc.
    ///
    /// What it buys: the daemon's private memory (RssAnon) after 10,000 commands, 7.3 MB with one
    /// arena and 8.0 MB without (the page on: 7.8 and 8.9 MB; `make bench`, row 5).
    @discardableResult
    public static func useOneMallocArena(environment: [String: String]) -> Bool {
        #if canImport(Glibc)
        if environment["MALLOC_ARENA_MAX"] != nil || environment["GLIBC_TUNABLES"]?.contains("arena_max") == true {
            return false
        }
        // glibc's mallopt (malloc.h, which the Glibc module does not bring): M_ARENA_MAX is -8.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        return mallopt(-8, 1) == 1
        #else
        return false
        #endif
    }
}
