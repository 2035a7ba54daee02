import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bridge's files in its state directory: JSON, written whole to a temporary file that is
/// created readable by its owner alone (0600), synced, then renamed over the old one, so a
/// crash leaves the old file or the new one and a key is never readable by others, not even briefly.
enum StateFile {
    static func read<T: Decodable>(_ type: T.Type, at path: String) throws(HomeKitError) -> T? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw .stateFile(path: path, reason: "cannot be read: \(error)")
        }
    }

    static func write(_ value: some Encodable, to path: String) throws(HomeKitError) {
        let data: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            data = try encoder.encode(value)
        } catch {
            throw .stateFile(path: path, reason: "cannot be encoded: \(error)")
        }
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .stateFile(path: directory, reason: "cannot be created: \(error)")
        }
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw .stateFile(path: temporary, reason: String(cString: strerror(errno))) }
        // An older file of ours created with another mode keeps it under O_CREAT: set it.
        fchmod(fd, 0o600)
        let written = data.withUnsafeBytes { raw in Glibc.write(fd, raw.baseAddress, raw.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == data.count, synced == 0 else {
            unlink(temporary)
            throw .stateFile(path: temporary, reason: "short write")
        }
        guard rename(temporary, path) == 0 else { throw .stateFile(path: path, reason: String(cString: strerror(errno))) }
    }
}
