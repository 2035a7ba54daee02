import Foundation
import Yams

/// Collects diagnostics while a file is read, and reads typed values out of YAML nodes,
/// reporting (not throwing) every value that is not what was expected.
///
/// More files may be read into the same node tree (housectl's file of accepted suggestions,
/// merged into house.yaml's): each is composed with its lines after the previous file's
/// (`lineOffset`), so a node's mark says which file it came from, and every diagnostic names
/// that file and its own line.
final class ConfigContext {
    let file: String
    /// The files read after `file`, each with the number of lines its marks are shifted by.
    private var more: [(file: String, offset: Int)] = []
    private(set) var diagnostics: [ConfigDiagnostic] = []

    init(file: String) { self.file = file }

    /// Reads `file` into the same tree: its text is composed after `offset` empty lines.
    func add(file: String, offset: Int) { more.append((file, offset)) }

    /// The file a mark's line is in, and the line in that file.
    func locate(line: Int) -> (file: String, line: Int) {
        guard let last = more.last(where: { line > $0.offset }) else { return (file, line) }
        return (last.file, line - last.offset)
    }

    /// Where a mark is, for a message that names another place: `file:line:column`.
    func place(_ mark: Mark?) -> String {
        let (f, line) = locate(line: mark?.line ?? 1)
        return "\(f):\(line):\(mark?.column ?? 1)"
    }

    /// `line N` in the file being read, or `file:line:column` in another.
    func lineText(_ mark: Mark) -> String {
        let (f, line) = locate(line: mark.line)
        return f == file ? "line \(line)" : place(mark)
    }

    /// The diagnostics by file (in the order read), then line and column.
    var sortedDiagnostics: [ConfigDiagnostic] {
        let order = [file] + more.map(\.file)
        return diagnostics.sorted {
            (order.firstIndex(of: $0.file) ?? 0, $0.line, $0.column) < (order.firstIndex(of: $1.file) ?? 0, $1.line, $1.column)
        }
    }

    func error(_ message: String, at mark: Mark?) {
        let (f, line) = locate(line: mark?.line ?? 1)
        diagnostics.append(ConfigDiagnostic(file: f, line: line, column: mark?.column ?? 1, message: message))
    }

    func error(_ message: String, at node: YNode?) { error(message, at: node?.mark) }

    // MARK: Scalars

    /// The node's text when it is a non-null scalar; otherwise reports what was expected.
    func string(_ node: YNode, expected: String) -> String? {
        switch node {
        case .scalar(let s):
            if Self.isNull(s) {
                error("expected \(expected), found nothing", at: node)
                return nil
            }
            return s.string
        default:
            error("expected \(expected), found \(Self.describe(node))", at: node)
            return nil
        }
    }

    func bool(_ node: YNode, expected: String = "true or false") -> Bool? {
        guard let s = string(node, expected: expected) else { return nil }
        switch s.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default:
            error("expected \(expected), found '\(s)'", at: node)
            return nil
        }
    }

    func int(_ node: YNode, expected: String, range: ClosedRange<Int>? = nil) -> Int? {
        guard let s = string(node, expected: expected) else { return nil }
        guard let v = Int(s), range.map({ $0.contains(v) }) ?? true else {
            error("expected \(expected), found '\(s)'", at: node)
            return nil
        }
        return v
    }

    func double(_ node: YNode, expected: String, range: ClosedRange<Double>? = nil) -> Double? {
        guard let s = string(node, expected: expected) else { return nil }
        guard let v = Double(s), v.isFinite, range.map({ $0.contains(v) }) ?? true else {
            error("expected \(expected), found '\(s)'", at: node)
            return nil
        }
        return v
    }

    /// A positive duration such as `90s`, `30m`, `1h30m`.
    func duration(_ node: YNode) -> Duration? {
        let expected = "a duration such as 500ms, 90s, 30m, 2h or 1h30m"
        guard let s = string(node, expected: expected) else { return nil }
        guard let d = DurationParser.parseChecked(s), d > .zero else {
            error("expected \(expected), found '\(s)'", at: node)
            return nil
        }
        return d
    }

    func timeEdge(_ node: YNode) -> TimeEdge? {
        let expected = "a time HH:MM (24-hour, quoted) or a sun event such as sunset, sunrise+30m, dusk-1h"
        guard let s = string(node, expected: expected) else { return nil }
        guard let edge = TimeEdge.parseChecked(s) else {
            error("expected \(expected), found '\(s)'", at: node)
            return nil
        }
        return edge
    }

    /// `weekdays`, `weekends`, `daily`, a day name, or a list of day names.
    func days(_ node: YNode) -> DaySet? {
        let expected = "days: daily, weekdays, weekends, a day name (mon, tuesday) or a list of them"
        if case .sequence(let seq) = node {
            var set = Set<Int>()
            var ok = true
            for item in seq {
                guard let s = string(item, expected: "a day name") else { ok = false; continue }
                if let d = DaySet(s) { set.formUnion(d.weekdays) } else {
                    error("expected \(expected), found '\(s)'", at: item)
                    ok = false
                }
            }
            if ok && set.isEmpty { error("expected \(expected), found an empty list", at: node); return nil }
            return ok ? DaySet(weekdays: set) : nil
        }
        guard let s = string(node, expected: expected) else { return nil }
        guard let d = DaySet(s) else {
            error("expected \(expected), found '\(s)'", at: node)
            return nil
        }
        return d
    }

    /// One value from a fixed set; "did you mean" when close to one of them.
    func oneOf(_ node: YNode, _ choices: [String], what: String) -> String? {
        let expected = "\(what): one of \(choices.joined(separator: ", "))"
        guard let s = string(node, expected: expected) else { return nil }
        let lower = s.lowercased()
        guard choices.contains(lower) else {
            error("expected \(expected), found '\(s)'\(Suggestion.hint(for: s, in: choices))", at: node)
            return nil
        }
        return lower
    }

    /// A list of strings; a single string is accepted as a one-element list.
    func strings(_ node: YNode, expected: String) -> [String]? {
        switch node {
        case .sequence(let seq):
            var out: [String] = []
            for item in seq {
                if let s = string(item, expected: expected) { out.append(s) }
            }
            return out
        case .scalar(let s) where Self.isNull(s):
            return []
        case .scalar:
            return string(node, expected: expected).map { [$0] }
        default:
            error("expected a list of \(expected), found \(Self.describe(node))", at: node)
            return nil
        }
    }

    /// List items with their nodes, for lists of references that need their own locations.
    func sequence(_ node: YNode, expected: String) -> [YNode]? {
        switch node {
        case .sequence(let seq): return Array(seq)
        case .scalar(let s) where Self.isNull(s): return []
        default:
            error("expected a list of \(expected), found \(Self.describe(node))", at: node)
            return nil
        }
    }

    // MARK: Mappings

    /// A reader over a mapping that reports unknown keys (with a suggestion) right away.
    /// `allowed: nil` accepts any key (the caller checks them).
    func map(_ node: YNode, what: String, allowed: [String]?) -> MapReader? {
        guard case .mapping(let m) = node else {
            error("expected \(what) as a mapping of key: value, found \(Self.describe(node))", at: node)
            return nil
        }
        for (key, _) in m {
            guard let k = key.scalar?.string else {
                error("expected a plain key in \(what), found \(Self.describe(key))", at: key)
                continue
            }
            if let allowed, !allowed.contains(k) {
                let hint = Suggestion.hint(for: k, in: allowed)
                let list = hint.isEmpty ? " (expected one of: \(allowed.joined(separator: ", ")))" : hint
                error("unknown key '\(k)' in \(what)\(list)", at: key)
            }
        }
        return MapReader(ctx: self, mapping: m, node: node, what: what)
    }

    static func isNull(_ s: YNode.Scalar) -> Bool {
        s.style == .plain && ["", "~", "null", "Null", "NULL"].contains(s.string)
    }

    static func describe(_ node: YNode) -> String {
        switch node {
        case .scalar(let s): return isNull(s) ? "nothing" : "'\(s.string)'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }
}

/// Typed access to one YAML mapping; missing required keys are reported at the mapping.
struct MapReader {
    let ctx: ConfigContext
    let mapping: YNode.Mapping
    let node: YNode
    let what: String

    var mark: Mark? { node.mark }

    func has(_ key: String) -> Bool { self[key] != nil }

    /// The value of `key`, where a null value counts as absent.
    subscript(key: String) -> YNode? {
        guard let v = mapping[key] else { return nil }
        if case .scalar(let s) = v, ConfigContext.isNull(s) { return nil }
        return v
    }

    /// The value of a required key; reports it missing (with what it should be) when absent.
    func require(_ key: String, expected: String) -> YNode? {
        if let v = self[key] { return v }
        ctx.error("missing key '\(key)' in \(what) (expected \(expected))", at: node)
        return nil
    }

    func string(_ key: String, expected: String, required: Bool = false) -> String? {
        let n = required ? require(key, expected: expected) : self[key]
        return n.flatMap { ctx.string($0, expected: expected) }
    }

    /// The key node itself (for locating a problem on the key rather than the value).
    func keyNode(_ key: String) -> YNode? {
        mapping.first { $0.key.scalar?.string == key }?.key
    }
}

/// A YAML node (named apart from the house's `Node`, a machine).
typealias YNode = Yams.Node
