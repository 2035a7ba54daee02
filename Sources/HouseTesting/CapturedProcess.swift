import Foundation

/// A program the tests run with its standard output and error in one file, read when it is
/// done: `output` (a temporary file of its own unless `outputPath` is given; a temporary one is
/// removed with this object).
public final class CapturedProcess: Sendable {
    public let process: SpawnedProcess
    /// Where the output goes.
    public let outputPath: String
    private let temporary: Bool

    /// Starts `executable` as `SpawnedProcess` does, its output into `outputPath` (made empty) or
    /// a temporary file.
    public init(
        _ executable: String, _ arguments: [String], outputPath: String? = nil,
        environment: [String: String] = [:], directory: String? = nil
    ) throws {
        let path = outputPath ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("housectl-output-\(UUID().uuidString)").path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        do {
            process = try SpawnedProcess(executable, arguments, output: handle.fileDescriptor,
                                         environment: environment, directory: directory)
        } catch {
            if outputPath == nil { try? FileManager.default.removeItem(atPath: path) }
            throw error
        }
        self.outputPath = path
        temporary = outputPath == nil
    }

    deinit {
        if temporary { try? FileManager.default.removeItem(atPath: outputPath) }
    }

    /// What it has written so far (all of it once it has exited).
    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Runs it to its end (the tools this is for all exit by themselves): its status and output.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil
    ) throws -> (status: Int32, output: String) {
        let run = try CapturedProcess(executable, arguments, environment: environment, directory: directory)
        let status = run.process.waitUntilExit()
        return (status, run.output)
    }
}
