import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files written whole: to a temporary file beside the file, synced, then renamed over it, so a
/// crash leaves the old file or the new one, never half of one.
public enum WholeFile {
    /// The permissions a written file gets.
    public enum Permissions: Sendable {
        /// These, whatever the file had (a key: 0600, set before a byte is written).
        case exactly(mode_t)
        /// The old file's mode and owner, or these for a new file.
        case keptOr(mode_t)
    }

    /// Writes `bytes` to `path`. `directoryMode`: create the directory (and its parents) with
    /// this mode when it is missing. Where the directory may not be written but the file may
    /// (a configuration directory under systemd's `ProtectSystem=strict`, with only the file in
    /// `ReadWritePaths`), a file whose permissions are kept is rewritten in place.
    public static func write(_ bytes: [UInt8], to path: String, permissions: Permissions,
                             directoryMode: mode_t? = nil) throws(DaemonError) {
        let directory = (path as NSString).deletingLastPathComponent
        if let directoryMode, !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: directoryMode])
            } catch {
                throw .file(path: directory, reason: "cannot be created: \(error)")
            }
        }
        var old = stat()
        let exists = stat(path, &old) == 0
        let mode: mode_t = switch permissions {
        case .exactly(let m): m
        case .keptOr(let m): exists ? old.st_mode & 0o7777 : m
        }
        let temporary = path + ".tmp"
        var fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, mode)
        var keeps = false
        if case .keptOr = permissions { keeps = true }
        let inPlace = fd < 0 && keeps && exists && [EACCES, EPERM, EROFS].contains(errno) && access(path, W_OK) == 0
        if inPlace { fd = open(path, O_WRONLY | O_TRUNC) }
        guard fd >= 0 else { throw .file(path: inPlace ? path : temporary, reason: String(cString: strerror(errno))) }
        if !inPlace {
            // A file of ours left with another mode keeps it under O_CREAT: set it.
            fchmod(fd, mode)
            if keeps && exists { _ = fchown(fd, old.st_uid, old.st_gid) }
        }
        let written = bytes.withUnsafeBytes { raw in Glibc.write(fd, raw.baseAddress, raw.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0 else {
            if !inPlace { unlink(temporary) }
            throw .file(path: inPlace ? path : temporary, reason: "short write")
        }
        guard inPlace || rename(temporary, path) == 0 else { throw .file(path: path, reason: String(cString: strerror(errno))) }
    }
}
