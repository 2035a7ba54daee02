import Foundation

extension PhraseSet {
    /// Our own phrase files of a house's folder, in the order they are read: `phrases.yaml`,
    /// then `phrases.LANGUAGE.yaml` for a house that speaks another language (config/phrases.de.yaml),
    /// that of the language without its region when there is none for it ("de-CH": phrases.de.yaml);
    /// only those that exist.
    public static func ownFiles(in directory: URL, language: String) -> [URL] {
        let base = directory.appendingPathComponent("phrases.yaml")
        let primary = String(language.split(separator: "-").first ?? Substring(language))
        let own = [language, primary].filter { $0 != "en" }.map { directory.appendingPathComponent("phrases.\($0).yaml") }
            .first { FileManager.default.fileExists(atPath: $0.path) }
        return ([base] + [own].compactMap { $0 }).filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Our own phrase files of `directory` for `language` (`ownFiles`), merged.
    public static func loadOwn(in directory: URL, language: String) throws(PhraseError) -> PhraseSet {
        try load(merging: ownFiles(in: directory, language: language))
    }

    /// `files` read in order and merged.
    public static func load(merging files: [URL]) throws(PhraseError) -> PhraseSet {
        var set = PhraseSet()
        for file in files { set = set.merging(try load(contentsOf: file)) }
        return set
    }
}
