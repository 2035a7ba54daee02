import Foundation
import Yams

/// Loads and validates `house.yaml` and the relay-board profiles it names.
///
/// Every problem is collected and reported together (`ConfigurationError.diagnostics`), each at
/// `file:line:column` with what was expected, so one `housectl config check` shows them all.
///
/// ```swift
/// let config = try ConfigurationLoader().load(path: "config/house.yaml")
/// ```
public struct ConfigurationLoader: Sendable {
    /// Where board profiles (`<board>.yaml`) are read from; nil means next to the config's
    /// directory (`config/house.yaml` reads `devices/`).
    public var devicesDirectory: String?

    public init(devicesDirectory: String? = nil) {
        self.devicesDirectory = devicesDirectory
    }

    /// The board directory used for a config file when none is given: `<config dir>/../devices`.
    public static func defaultDevicesDirectory(forConfigAt path: String) -> String {
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent()
        return dir.deletingLastPathComponent().appendingPathComponent("devices").path
    }

    /// Reads, parses and validates the file at `path`, housectl's file of accepted suggestions
    /// beside it when there is one (`AcceptedFile`), and the board profiles.
    public func load(path: String) throws(ConfigurationError) -> HouseConfiguration {
        try load(path: path, accepted: try Self.acceptedText(forConfigAt: path))
    }

    /// The text of housectl's file beside the configuration at `path`, with its path; nil when
    /// there is none. One that is there but cannot be read is an error, not left out.
    public static func acceptedText(forConfigAt path: String) throws(ConfigurationError) -> (text: String, file: String)? {
        let file = AcceptedFile.path(forConfigAt: path)
        guard FileManager.default.fileExists(atPath: file) else { return nil }
        do {
            return (try String(contentsOfFile: file, encoding: .utf8), file)
        } catch {
            throw ConfigurationError(diagnostics: [ConfigDiagnostic(
                file: file, line: 1, column: 1, message: "cannot read housectl's file of accepted suggestions: \(error.localizedDescription)")])
        }
    }

    /// Reads, parses and validates the file at `path` with `accepted` as its file of accepted
    /// suggestions (in place of the one on disk), and the board profiles.
    public func load(path: String, accepted: (text: String, file: String)?) throws(ConfigurationError) -> HouseConfiguration {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(diagnostics: [ConfigDiagnostic(
                file: path, line: 1, column: 1, message: "cannot read the configuration: \(error.localizedDescription)")])
        }
        let dir = devicesDirectory ?? Self.defaultDevicesDirectory(forConfigAt: path)
        let (boards, boardDiagnostics) = Self.loadBoards(directory: dir)
        let result = Result { () throws(ConfigurationError) in
            try load(yaml: text, file: path, accepted: accepted, boards: boards, boardsLocation: dir)
        }
        switch result {
        case .success(let config) where boardDiagnostics.isEmpty:
            return config
        case .success:
            throw ConfigurationError(diagnostics: boardDiagnostics)
        case .failure(let error):
            throw ConfigurationError(diagnostics: boardDiagnostics + error.diagnostics)
        }
    }

    /// Parses and validates configuration text against already loaded board profiles.
    /// - Parameters:
    ///   - file: the name used in diagnostics.
    ///   - accepted: housectl's file of accepted suggestions (its text and name), read into the
    ///     configuration (`AcceptedFile`); its problems are reported at its own places.
    ///   - boardsLocation: where the boards came from, for messages.
    public func load(yaml: String, file: String, accepted: (text: String, file: String)? = nil, boards: [String: BoardProfile],
                     boardsLocation: String = "devices/") throws(ConfigurationError) -> HouseConfiguration {
        let ctx = ConfigContext(file: file)
        guard var root = Self.compose(yaml, ctx: ctx) else {
            if ctx.diagnostics.isEmpty { ctx.error("the configuration is empty; expected house, rooms and devices", at: nil as Mark?) }
            throw ConfigurationError(diagnostics: ctx.diagnostics)
        }
        var answers = SuggestionAnswers()
        if let accepted {
            // Its lines come after house.yaml's in the marks: each node says which file it is from.
            let offset = yaml.utf8.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            ctx.add(file: accepted.file, offset: offset)
            if let owned = Self.compose(String(repeating: "\n", count: offset) + accepted.text, ctx: ctx) {
                (root, answers) = AcceptedFile.merge(owned, into: root, ctx: ctx)
            }
        }
        let parser = ConfigurationParser(ctx: ctx, boards: boards, boardsLocation: boardsLocation)
        let config = parser.parse(root)
        guard var config, ctx.diagnostics.isEmpty else {
            throw ConfigurationError(diagnostics: ctx.sortedDiagnostics)
        }
        config.suggestions.answers = answers
        return config
    }

    /// Every `*.yaml` board profile in `directory`, by id, with the problems found in them.
    public static func loadBoards(directory: String) -> (boards: [String: BoardProfile], diagnostics: [ConfigDiagnostic]) {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: directory) else {
            return ([:], [])
        }
        var boards: [String: BoardProfile] = [:]
        var diagnostics: [ConfigDiagnostic] = []
        for name in names.sorted() where name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
            let path = (directory as NSString).appendingPathComponent(name)
            let ctx = ConfigContext(file: path)
            let id = String(name.prefix(upTo: name.lastIndex(of: ".")!))
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                if let root = compose(text, ctx: ctx),
                   let board = BoardProfileParser.parse(root, fileID: id, ctx: ctx), ctx.diagnostics.isEmpty {
                    boards[id] = board
                }
            } else {
                ctx.error("cannot read the board profile", at: nil as Mark?)
            }
            diagnostics += ctx.diagnostics
        }
        return (boards, diagnostics)
    }

    /// Parses a board profile from text (for tests and tools).
    public static func parseBoard(yaml: String, id: String, file: String = "board.yaml") throws(ConfigurationError) -> BoardProfile {
        let ctx = ConfigContext(file: file)
        guard let root = compose(yaml, ctx: ctx), let board = BoardProfileParser.parse(root, fileID: id, ctx: ctx),
              ctx.diagnostics.isEmpty else {
            throw ConfigurationError(diagnostics: ctx.diagnostics)
        }
        return board
    }

    /// YAML syntax errors become located diagnostics.
    static func compose(_ text: String, ctx: ConfigContext) -> YNode? {
        do {
            return try YAMLText.compose(text)
        } catch let error as YamlError {
            switch error {
            case .scanner(let context, let problem, let mark, _),
                 .parser(let context, let problem, let mark, _),
                 .composer(let context, let problem, let mark, _):
                let c = context.map { " (\($0.text) at line \($0.mark.line))" } ?? ""
                ctx.error("YAML syntax: \(problem)\(c)", at: mark)
            case .duplicatedKeysInMapping(let duplicates, let context):
                ctx.error("YAML: duplicate key\(duplicates.count > 1 ? "s" : "") \(duplicates.map { "'\($0)'" }.joined(separator: ", ")) in one mapping", at: context.mark)
            default:
                ctx.error("YAML: \(error)", at: nil as Mark?)
            }
            return nil
        } catch {
            ctx.error("YAML: \(error)", at: nil as Mark?)
            return nil
        }
    }
}
