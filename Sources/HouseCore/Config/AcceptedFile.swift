import Yams

/// housectl's own file next to house.yaml: the suggestions people accepted and dismissed
/// (`housectl suggestions accept|dismiss`, the page). `ConfigurationLoader` reads it with
/// house.yaml into one configuration; house.yaml itself is never rewritten.
///
/// For `config/house.yaml` it is `config/house.accepted.yaml`: beside the file it completes,
/// named after it (two configurations in one directory keep their own), so every node that is
/// given the same house.yaml is given the same answers, and a person sees it next to the file
/// they edit. Its items are in house.yaml's syntax:
///
/// ```yaml
/// suggestions: {accepted: [s-...], dismissed: [s-...]}
/// routines: [...]     # new routines; an id house.yaml has too is an error naming both places
/// modes: [...]        # new modes, likewise
/// rules: [...]        # new rules, likewise
/// changes:            # keys set on items of house.yaml, by id (an id it lacks is an error)
///   devices: [{id: bathroom-heater, max_on: 45m}]
///   modes: [{id: morning, devices: {hall-light: ON}}]
///   routines: [{id: good-night, run_at: "00:00"}]
/// ```
///
/// Its nodes keep their own place, so a problem in it is reported at its own file:line:column.
public enum AcceptedFile {
    /// The sections of new items.
    static let newSections = ["routines", "modes", "rules"]
    /// The sections `changes:` may set keys in.
    static let changedSections = ["devices", "modes", "routines"]

    /// The file for the configuration at `path`: `house.yaml` → `house.accepted.yaml` beside it.
    public static func path(forConfigAt path: String) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        var name = String(path[slash...])
        for ext in [".yaml", ".yml"] where name.hasSuffix(ext) { name.removeLast(ext.count) }
        return String(path[..<slash]) + name + ".accepted.yaml"
    }

    /// What the file starts with: whose it is and how it is read.
    public static let header = """
        # housectl's file: the suggestions accepted and dismissed (housectl suggestions accept|dismiss,
        # or the page), read with house.yaml, which housectl never rewrites. routines, modes and rules
        # are new items (an id house.yaml has too is an error); changes sets keys on items of
        # house.yaml. To change an item by hand, move it into house.yaml and delete it here.

        """

    // MARK: Reading

    /// `owned` (the file's tree) read into `root` (house.yaml's): new items appended to their
    /// sections, changes merged into their items key by key; with the answers it keeps. Every
    /// problem is reported on `ctx` at its place, and an item in conflict is left out.
    static func merge(_ owned: YNode, into root: YNode, ctx: ConfigContext) -> (root: YNode, answers: SuggestionAnswers) {
        let what = "housectl's file of accepted suggestions"
        guard case .mapping(var house) = root,
              let file = ctx.map(owned, what: what, allowed: ["suggestions"] + newSections + ["changes"]) else { return (root, SuggestionAnswers()) }
        var answers = SuggestionAnswers()
        if let s = file["suggestions"], let m = ctx.map(s, what: "suggestions of \(what)", allowed: ["accepted", "dismissed"]) {
            answers.accepted = m["accepted"].flatMap { ctx.strings($0, expected: "suggestion ids (s-...)") } ?? []
            answers.dismissed = m["dismissed"].flatMap { ctx.strings($0, expected: "suggestion ids (s-...)") } ?? []
        }
        for section in newSections {
            guard let node = file[section], let items = ctx.sequence(node, expected: "new \(section)") else { continue }
            var list = house[section]?.sequence ?? []
            for item in items {
                if let (idNode, id) = identifier(item), let theirs = Self.idNode(in: house[section], id: id) {
                    ctx.error("\(section.dropLast()) '\(id)' is in house.yaml too, at \(ctx.place(theirs.mark)); "
                              + "housectl's file only adds new ones: rename or delete one of the two", at: idNode)
                    continue
                }
                list.append(item)
            }
            house[section] = .sequence(list)
        }
        if let node = file["changes"], let changes = ctx.map(node, what: "changes of \(what)", allowed: changedSections) {
            for section in changedSections {
                guard let node = changes[section], let items = ctx.sequence(node, expected: "changes to \(section)") else { continue }
                guard case .sequence(var list)? = house[section] else {
                    ctx.error("house.yaml has no \(section) to change", at: node)
                    continue
                }
                for change in items {
                    guard let (idNode, id) = identifier(change) else {
                        ctx.error("expected a change with the id of one of house.yaml's \(section)", at: change)
                        continue
                    }
                    guard let i = list.firstIndex(where: { identifier($0)?.id == id }) else {
                        let ids = list.compactMap { identifier($0)?.id }
                        ctx.error("no \(section.dropLast()) '\(id)' in house.yaml to change\(Suggestion.hint(for: id, in: ids))", at: idNode)
                        continue
                    }
                    list[i] = ConfigurationSnippet.merged(list[i], change, root: false)
                }
                house[section] = .sequence(list)
            }
        }
        return (.mapping(house), answers)
    }

    /// An item's id node and text.
    private static func identifier(_ item: YNode) -> (node: YNode, id: String)? {
        guard let node = item.mapping?["id"], let id = node.scalar?.string, !id.isEmpty else { return nil }
        return (node, id)
    }

    /// The id node of the item of `list` with this id.
    private static func idNode(in list: YNode?, id: String) -> YNode? {
        list?.sequence?.lazy.compactMap(identifier).first { $0.id == id }?.node
    }

    // MARK: Writing

    /// The file's text after accepting `suggestion`: each item of its snippet added as a new item,
    /// merged into an item of this file, or (an id house.yaml has) set as a change; its id
    /// accepted (and no longer dismissed). `text` is the file now (nil: none yet), `house`
    /// house.yaml's text.
    public static func accepting(_ suggestion: HabitSuggestion, file text: String?, house: String,
                                 name: String = "house.accepted.yaml") throws(ConfigurationError) -> String {
        let ctx = ConfigContext(file: name)
        var file = try tree(text, ctx: ctx)
        let houseRoot = ConfigurationLoader.compose(house, ctx: ctx)?.mapping ?? [:]
        let snippet = ConfigurationLoader.compose(suggestion.yaml, ctx: ctx)?.mapping ?? [:]
        guard ctx.diagnostics.isEmpty else { throw ConfigurationError(diagnostics: ctx.diagnostics) }
        var changes = file["changes"]?.mapping ?? [:]
        for (key, value) in snippet {
            guard let section = key.scalar?.string, let items = value.sequence else { continue }
            for item in items {
                let id = identifier(item)?.id
                if let id, case .sequence(var own)? = file[section], let i = own.firstIndex(where: { identifier($0)?.id == id }) {
                    own[i] = ConfigurationSnippet.merged(own[i], item, root: false)
                    file[section] = .sequence(own)
                } else if let id, idNode(in: houseRoot[section], id: id) != nil {
                    var list = changes[section]?.sequence ?? []
                    if let i = list.firstIndex(where: { identifier($0)?.id == id }) {
                        list[i] = ConfigurationSnippet.merged(list[i], item, root: false)
                    } else {
                        list.append(item)
                    }
                    changes[section] = .sequence(list)
                } else {
                    file[section] = .sequence((file[section]?.sequence ?? []) + [item])
                }
            }
        }
        if !changes.isEmpty { file["changes"] = .mapping(changes) }
        return try write(file, answers: { $0.accepted.append(suggestion.id); $0.dismissed.removeAll { $0 == suggestion.id } }, ctx: ctx)
    }

    /// The file's text after dismissing the suggestion `id`.
    public static func dismissing(_ id: String, file text: String?, name: String = "house.accepted.yaml") throws(ConfigurationError) -> String {
        let ctx = ConfigContext(file: name)
        return try write(try tree(text, ctx: ctx), answers: { if !$0.dismissed.contains(id) { $0.dismissed.append(id) } }, ctx: ctx)
    }

    /// The file's top-level mapping (empty when there is no file yet).
    private static func tree(_ text: String?, ctx: ConfigContext) throws(ConfigurationError) -> YNode.Mapping {
        guard let text, let root = ConfigurationLoader.compose(text, ctx: ctx) else {
            if !ctx.diagnostics.isEmpty { throw ConfigurationError(diagnostics: ctx.diagnostics) }
            return [:]
        }
        guard let mapping = root.mapping else {
            ctx.error("expected housectl's file of accepted suggestions as a mapping of suggestions, routines, modes, rules and changes", at: root)
            throw ConfigurationError(diagnostics: ctx.diagnostics)
        }
        return mapping
    }

    /// The text of `file` with its answers changed by `change`, its sections in a fixed order.
    private static func write(_ file: YNode.Mapping, answers change: (inout SuggestionAnswers) -> Void,
                              ctx: ConfigContext) throws(ConfigurationError) -> String {
        let old = file["suggestions"]?.mapping
        var answers = SuggestionAnswers(accepted: ids(old?["accepted"]), dismissed: ids(old?["dismissed"]))
        change(&answers)
        var out: YNode.Mapping = [:]
        var suggestions: YNode.Mapping = [:]
        for (key, list) in [("accepted", answers.accepted), ("dismissed", answers.dismissed)] where !list.isEmpty {
            suggestions[key] = .sequence(YNode.Sequence(list.map { YNode($0) }, .implicit, .flow))
        }
        out["suggestions"] = .mapping(suggestions)
        for key in newSections + ["changes"] {
            if let value = file[key] { out[key] = value }
        }
        do {
            return header + (try Yams.serialize(node: .mapping(out)))
        } catch {
            ctx.error("cannot write the file: \(error)", at: nil as Mark?)
            throw ConfigurationError(diagnostics: ctx.diagnostics)
        }
    }

    private static func ids(_ node: YNode?) -> [String] {
        node?.sequence?.compactMap { $0.scalar?.string } ?? []
    }
}
