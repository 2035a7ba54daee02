import Foundation

/// Writing to standard error.
enum FileHandleOutput {
    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }
}
