import Foundation

/// The daemon's binary in the page cache, as rows 5 and 8 find it.
///
/// Part of a daemon's peak RSS is the binary's code and read-only data it maps, and how much one
/// touch maps depends on how the file came into the page cache: the same binary measured about
/// 1.3 MB more in row 8 just after it was linked (its pages written by the linker) than once read
/// back from disk (docs/BENCHMARKS.md, session 28). A daemon on a Pi starts after a boot, from a
/// binary read from the SD card; so the footprint rows start from that state.
enum BinaryPages {
    /// Asks the kernel to drop `path`'s clean pages from the page cache (`POSIX_FADV_DONTNEED`:
    /// this file only, no privileges, nothing lost), so the next daemon reads the binary from
    /// disk as after a boot. Returns why not, or nil.
    static func evict(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return "open \(path): errno \(errno)" }
        defer { close(fd) }
        let rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        return rc == 0 ? nil : "posix_fadvise \(path): error \(rc)"
    }
}
