/// Everything that can go wrong loading, parsing or compiling phrase templates.
public enum PhraseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A sentence template is not valid hassil syntax.
    case syntax(template: String, offset: Int, message: String)
    /// The phrase file is not the expected shape.
    case invalidFile(source: String, message: String)
    /// A template refers to a `<rule>` that no `expansion_rules` entry defines, or rules refer to each other in a loop.
    case unknownRule(name: String, template: String)
    /// A template refers to a `{list}` that is neither defined in `lists:` nor built in.
    case unknownList(name: String, template: String)
    /// Expansion rules refer to themselves.
    case recursiveRule(name: String)

    public var description: String {
        switch self {
        case .syntax(let template, let offset, let message):
            "phrase template \"\(template)\" at character \(offset + 1): \(message)"
        case .invalidFile(let source, let message):
            "\(source): \(message)"
        case .unknownRule(let name, let template):
            "phrase template \"\(template)\" uses <\(name)>, but no expansion rule of that name is defined"
        case .unknownList(let name, let template):
            "phrase template \"\(template)\" uses {\(name)}, but no list of that name is defined or built in"
        case .recursiveRule(let name):
            "expansion rule <\(name)> refers to itself"
        }
    }
}
