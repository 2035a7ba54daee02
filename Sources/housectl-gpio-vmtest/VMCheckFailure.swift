/// Why one check of the in-VM test failed.
struct VMCheckFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
