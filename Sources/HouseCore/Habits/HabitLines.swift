/// A history of what people did as the JSON lines `HabitHistory` reads, and where it came from
/// (a file, or the controller's state database), for its messages.
public struct HabitLines: Sendable {
    public var text: String
    public var source: String

    public init(text: String, source: String) {
        self.text = text
        self.source = source
    }
}
