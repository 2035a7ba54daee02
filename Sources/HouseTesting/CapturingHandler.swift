import Logging

/// A swift-log handler writing "level label: message metadata" lines into a `LogCapture`.
public struct CapturingHandler: LogHandler {
    public let label: String
    public let capture: LogCapture
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace
    public var metadataProvider: Logger.MetadataProvider?

    public init(label: String, capture: LogCapture) {
        self.label = label
        self.capture = capture
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let meta = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        capture.append("\(event.level) \(label): \(event.message) \(meta)")
    }
}
