/// A floor of the house ("upstairs", "the ground floor"): a group of rooms people name at once
/// ("turn off the upstairs lights", "is anything on on the first floor").
public struct Floor: Sendable, Equatable {
    public var id: FloorID
    public var name: String
    /// Other names: "upstairs", "downstairs", "ground floor", "attic".
    public var aliases: [String]

    public init(id: FloorID, name: String, aliases: [String] = []) {
        self.id = id
        self.name = name
        self.aliases = aliases
    }
}
