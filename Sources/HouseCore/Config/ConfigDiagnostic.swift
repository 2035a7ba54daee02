/// One problem found in a configuration file, located at `file:line:column`.
public struct ConfigDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// The file the problem is in, as it was given to the loader.
    public var file: String
    /// 1-based line.
    public var line: Int
    /// 1-based column.
    public var column: Int
    /// What is wrong and what was expected.
    public var message: String

    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: error: message`, the form editors and compilers use.
    public var description: String { "\(file):\(line):\(column): error: \(message)" }
}

/// The configuration could not be loaded. Carries every problem found, not just the first.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var diagnostics: [ConfigDiagnostic]

    public init(diagnostics: [ConfigDiagnostic]) { self.diagnostics = diagnostics }

    public var description: String {
        let n = diagnostics.count
        return diagnostics.map(\.description).joined(separator: "\n")
            + "\n\(n) error\(n == 1 ? "" : "s") in the configuration"
    }
}
