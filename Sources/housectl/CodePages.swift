import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's code pages: mapped as they are run, one page at a time.
///
/// On a page fault in a file mapping Linux maps up to 16 neighbouring pages that are in the page
/// cache ("fault-around"), so a process that touches its code here and there ends up with most
/// of a 20 MB static binary resident. `MADV_RANDOM` on the executable mappings turns that off
/// for them: the resident set holds the code that runs. (The cost: on a cold start each code page
/// is read from the disk on its own instead of in a batch.)
enum CodePages {
    /// Advises random access on every executable file mapping of this process (the binary and the
    /// shared libraries). Best effort: nothing happens where /proc or `madvise` is missing.
    static func adviseRandomAccess() {
        #if os(Linux)
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return }
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1].hasPrefix("r-x"), fields[5].hasPrefix("/") else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), end > start
            else { continue }
            _ = madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), MADV_RANDOM)
        }
        #endif
    }
}
