import Foundation
import HouseDaemon

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
        do {
            try WholeFile.write(Array(data), to: path, permissions: .exactly(0o600), directoryMode: 0o700)
        } catch {
            guard case .file(let at, let reason) = error else { throw .stateFile(path: path, reason: "\(error)") }
            throw .stateFile(path: at, reason: reason)
        }
    }
}
