// libFuzzer target: the phrase matcher on the example house and the shipped phrases, plus the
// duration and time-edge parsers it leans on; compiled into the HouseCore module by fuzz/build.sh.
import Foundation

private let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

private let matcher: PhraseMatcher = {
    do {
        let house = try ConfigurationLoader().load(path: repositoryRoot + "/config/house.yaml")
        let phrases = try PhraseSet.load(contentsOf: URL(fileURLWithPath: repositoryRoot + "/config/phrases.yaml"))
        return try PhraseMatcher(phraseSet: phrases, house: house)
    } catch {
        fatalError("cannot load the example house or phrases: \(error)")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPhraseMatcher(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size <= 512 else { return 0 }  // spoken commands are short
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = matcher.interpret(text)
    _ = DurationParser.parse(text)
    _ = TimeEdge(text)
    return 0
}
