import Yams

/// How housectl reads YAML text: the one place its files (`house.yaml`, board profiles,
/// `phrases.yaml`) are composed into nodes.
enum YAMLText {
    /// Composes `text` into a node tree with plain string scalars.
    ///
    /// The parsers read every scalar as text and check it themselves (`ConfigContext.int`,
    /// `ConfigContext.bool`, ...), so no YAML 1.1 tag resolution is needed. Yams' default
    /// resolver matches each scalar against `NSRegularExpression`s, which brings ICU's regular
    /// expression engine and its character-property tables into every process that reads a
    /// config (about 1 MB of the daemon's resident memory); `.basic` has no rules.
    static func compose(_ text: String) throws -> Yams.Node? {
        try Yams.compose(yaml: text, .basic)
    }
}
