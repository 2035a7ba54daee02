import Foundation

/// The daemon's binary in the page cache, as row 5 finds it.
///
/// Part of a daemon's peak RSS (VmHWM, row 5's information) is the binary's code and read-only
/// data it maps, and how much one touch maps depends on how the file came into the page cache:
/// the same binary measured about 1.3 MB more just after it was linked (its pages written by the
/// linker) than once read back from disk. A daemon on a Pi starts after a boot, from a binary read
/// from the SD card; so row 5 starts from that state: its first start-to-ready is a start from
/// disk (in its note), and its VmHWM figures stay comparable from build to build. RssAnon, the
/// goal, is private memory and does not depend on it.
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
