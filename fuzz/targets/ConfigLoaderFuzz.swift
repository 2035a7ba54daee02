// libFuzzer target: the configuration loader on in-memory YAML (with the shipped board
// profiles); compiled into the HouseCore module by fuzz/build.sh.
import Foundation

private let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
private let boards = ConfigurationLoader.loadBoards(directory: repositoryRoot + "/devices").boards

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigLoader(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size <= 64 * 1024 else { return 0 }
    let yaml = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? ConfigurationLoader().load(yaml: yaml, file: "fuzz.yaml", boards: boards)
    _ = try? ConfigurationLoader.parseBoard(yaml: yaml, id: "fuzz")
    return 0
}
