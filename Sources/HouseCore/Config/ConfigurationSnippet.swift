import Yams

/// A piece of house.yaml to merge into a whole one: what a suggestion's snippet is
/// (`HabitSuggestion.yaml`), and what a file of accepted suggestions next to house.yaml holds.
///
/// Merging: a top-level list's items with an `id` already in the house are merged into that
/// item, others appended; mappings are merged key by key, recursively; any other value replaces
/// the house's. So `modes: [{id: morning, devices: {hall-light: ON}}]` adds one device to the mode
/// morning, and `devices: [{id: office-fan, max_on: 45m}]` gives the office fan a `max_on`.
public enum ConfigurationSnippet {
    /// `house` with `snippet` merged into it, as YAML text (comments and layout are not kept);
    /// a file that is not YAML, or not a mapping of top-level keys, is reported at its place.
    public static func merge(_ snippet: String, into house: String, file: String = "snippet") throws(ConfigurationError) -> String {
        let ctx = ConfigContext(file: file)
        guard let base = ConfigurationLoader.compose(house, ctx: ctx), let part = ConfigurationLoader.compose(snippet, ctx: ctx) else {
            throw ConfigurationError(diagnostics: ctx.diagnostics)
        }
        guard case .mapping = base, case .mapping = part else {
            ctx.error("expected a mapping of top-level keys (routines:, modes:, devices:, ...)", at: part.mark)
            throw ConfigurationError(diagnostics: ctx.diagnostics)
        }
        do {
            return try Yams.serialize(node: merged(base, part, root: true))
        } catch {
            ctx.error("cannot write the merged YAML: \(error)", at: nil as Mark?)
            throw ConfigurationError(diagnostics: ctx.diagnostics)
        }
    }

    /// `part` merged into `base`: mappings key by key; the lists of the top level (`root`) by
    /// their items' ids; anything else replaced.
    static func merged(_ base: Yams.Node, _ part: Yams.Node, root: Bool) -> Yams.Node {
        switch (base, part) {
        case (.mapping(var old), .mapping(let new)):
            for (key, value) in new {
                old[key] = old[key].map { merged($0, value, listsByID: root) } ?? value
            }
            return .mapping(old)
        default:
            return part
        }
    }

    private static func merged(_ base: Yams.Node, _ part: Yams.Node, listsByID: Bool) -> Yams.Node {
        guard listsByID, case .sequence(var items) = base, case .sequence(let added) = part else {
            return merged(base, part, root: false)
        }
        for item in added {
            if let id = item.mapping?["id"], let i = items.firstIndex(where: { $0.mapping?["id"] == id }) {
                items[i] = merged(items[i], item, root: false)
            } else {
                items.append(item)
            }
        }
        return .sequence(items)
    }
}
