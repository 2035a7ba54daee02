import ArgumentParser
import Foundation
import HouseCore

/// Loading the phrase templates: `phrases.yaml` beside the house configuration, the user's
/// files, and the community grammar of the house's language (`CommunityGrammar`).
enum PhraseFiles {
    /// What was read, for `config check` and the daemon's log.
    struct Loaded {
        var phraseSet: PhraseSet
        /// One line on the community grammar: which file, or why none.
        var grammar: String
    }

    /// Our own phrase files (`PhraseSet.ownFiles`: phrases.yaml, and phrases.LANGUAGE.yaml when
    /// there is one), the user's, then the grammar of `language` when its file is found.
    /// `ours: false` reads the grammar alone (what hassil reads, for comparing the two).
    static func load(configPath: String, extra: [String], language: String = "en", grammarDirectory: String? = nil,
                     ours: Bool = true) throws -> Loaded {
        let directory = URL(fileURLWithPath: configPath).deletingLastPathComponent()
        let own = ours ? PhraseSet.ownFiles(in: directory, language: language) : []
        var set = try PhraseSet.load(merging: own)
        // Our file of the language, named beside the grammar (config check, the log).
        let languageFiles = own.map(\.lastPathComponent).filter { $0 != "phrases.yaml" }
        let also = languageFiles.isEmpty ? "" : "; ours also from " + languageFiles.joined(separator: ", ")
        for path in extra {
            guard FileManager.default.fileExists(atPath: path) else { throw ValidationError("phrase file \(path) does not exist") }
            set = set.merging(try PhraseSet.load(contentsOf: URL(fileURLWithPath: path)))
        }
        let folders = grammarFolders(configPath: configPath, explicit: grammarDirectory)
        guard let file = folders.lazy.map({ CommunityGrammar.file(language: language, in: URL(fileURLWithPath: $0)) })
            .first(where: { FileManager.default.fileExists(atPath: $0.path) })
        else {
            if let grammarDirectory { throw ValidationError("--grammar-dir: no \(language).json in \(grammarDirectory)") }
            return Loaded(phraseSet: set, grammar: "no community grammar for '\(language)' (looked in \(folders.joined(separator: ", ")); "
                          + "scripts/intents-data.sh fetches home-assistant-intents \(CommunityGrammar.version)): our own phrases only" + also)
        }
        let grammar = try CommunityGrammar.load(contentsOf: file)
        let templates = grammar.phraseSet.groups.reduce(0) { $0 + $1.sentences.count }
        set = set.merging(grammar.phraseSet)
        return Loaded(phraseSet: set, grammar: "community grammar '\(language)' from \(file.path) (\(templates) templates)" + also)
    }

    /// Where the grammar's files are looked for: `--grammar-dir`, else `HOUSECTL_GRAMMAR_DIR`,
    /// else `.cache/intents/VERSION` beside the configuration's folder (a checkout: `make`
    /// fetches it there), else `share/housectl/intents/VERSION` beside the binary's folder (an
    /// install: deploy/install.sh puts it there).
    static func grammarFolders(configPath: String, explicit: String?) -> [String] {
        if let explicit { return [explicit] }
        if let env = ProcessInfo.processInfo.environment["HOUSECTL_GRAMMAR_DIR"], !env.isEmpty { return [env] }
        let version = CommunityGrammar.version
        let checkout = URL(fileURLWithPath: configPath).deletingLastPathComponent().deletingLastPathComponent()
        // The running binary itself (argv[0] is only "housectl" when it was found on PATH).
        let binary = (Bundle.main.executableURL ?? URL(fileURLWithPath: "/proc/self/exe")).resolvingSymlinksInPath().deletingLastPathComponent()
        return [
            checkout.appendingPathComponent(".cache/intents/\(version)").path,
            binary.deletingLastPathComponent().appendingPathComponent("share/housectl/intents/\(version)").path,
        ]
    }
}
