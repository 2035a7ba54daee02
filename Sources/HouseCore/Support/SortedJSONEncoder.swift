/// Compact JSON with the keys of every object sorted by their UTF-8 bytes: the text Foundation's
/// `JSONEncoder` writes on Linux with `.sortedKeys` (and `.withoutEscapingSlashes` when
/// `escapingSlashes` is false), written without it. Every payload housectl publishes and every
/// answer of the page is written this way; FoundationEssentials' encoder (its code, its `Data`)
/// stays out of the daemon's request paths.
///
/// Numbers as `JSONEncoder` writes them (`20`, `2.5`, `1e+16`); a NaN or infinity is refused as
/// it refuses them. Dates, `Data`, URLs and decimals get no special form: none of housectl's
/// payloads has one.
public struct SortedJSONEncoder: Sendable {
    /// Whether `/` is written `\/`, as `JSONEncoder` does by default.
    public var escapingSlashes: Bool

    public init(escapingSlashes: Bool = true) {
        self.escapingSlashes = escapingSlashes
    }

    /// The JSON text of `value`.
    public func encode<T: Encodable>(_ value: T) throws -> String {
        let node = try Node.of(value, codingPath: [])
        var out = ""
        node.write(to: &out, escapingSlashes: escapingSlashes)
        return out
    }

    /// An encoded value: built by the containers, written once whole (an object's members are
    /// only sorted then).
    fileprivate enum Node {
        case literal(String)
        case string(String)
        case array(ArrayBox)
        case object(ObjectBox)

        static func of<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> Node {
            switch value {
            case let s as String: return .string(s)
            case let b as Bool: return .literal(b ? "true" : "false")
            // Every integer type: their own `encode(to:)` would come back here.
            case let i as Int: return .literal(String(i))
            case let i as Int8: return .literal(String(i))
            case let i as Int16: return .literal(String(i))
            case let i as Int32: return .literal(String(i))
            case let i as Int64: return .literal(String(i))
            case let i as UInt: return .literal(String(i))
            case let i as UInt8: return .literal(String(i))
            case let i as UInt16: return .literal(String(i))
            case let i as UInt32: return .literal(String(i))
            case let i as UInt64: return .literal(String(i))
            case let d as Double: return try number(d, codingPath: codingPath)
            case let f as Float: return try number(f, codingPath: codingPath)
            default:
                let encoder = NodeEncoder(codingPath: codingPath)
                try value.encode(to: encoder)
                // A value that encoded nothing is an empty object, as `JSONEncoder` writes it.
                return encoder.node ?? .object(ObjectBox())
            }
        }

        static func number<F: BinaryFloatingPoint & CustomStringConvertible>(_ value: F, codingPath: [any CodingKey]) throws -> Node {
            guard value.isFinite else {
                throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "\(value) is not a JSON number"))
            }
            var text = value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            return .literal(text)
        }

        func write(to out: inout String, escapingSlashes: Bool) {
            switch self {
            case .literal(let text):
                out += text
            case .string(let s):
                JSONValue.write(string: s, to: &out, escapingSlashes: escapingSlashes)
            case .array(let box):
                out += "["
                for (i, element) in box.elements.enumerated() {
                    if i > 0 { out += "," }
                    element.write(to: &out, escapingSlashes: escapingSlashes)
                }
                out += "]"
            case .object(let box):
                out += "{"
                let keys = box.members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                for (i, key) in keys.enumerated() {
                    if i > 0 { out += "," }
                    JSONValue.write(string: key, to: &out, escapingSlashes: escapingSlashes)
                    out += ":"
                    box.members[key]!.write(to: &out, escapingSlashes: escapingSlashes)
                }
                out += "}"
            }
        }
    }

    fileprivate final class ArrayBox {
        var elements: [Node] = []
    }

    fileprivate final class ObjectBox {
        var members: [String: Node] = [:]
    }

    /// The `Encoder` a value writes itself to: one container, or one single value.
    fileprivate final class NodeEncoder: Encoder {
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        var node: Node?

        init(codingPath: [any CodingKey]) {
            self.codingPath = codingPath
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            let box: ObjectBox
            if case .object(let existing) = node {
                box = existing
            } else {
                box = ObjectBox()
                node = .object(box)
            }
            return KeyedEncodingContainer(KeyedContainer(box: box, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            let box: ArrayBox
            if case .array(let existing) = node {
                box = existing
            } else {
                box = ArrayBox()
                node = .array(box)
            }
            return UnkeyedContainer(box: box, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            SingleValueContainer(encoder: self)
        }
    }

    /// A key that is an array's index or `super`, for coding paths and super encoders.
    fileprivate struct IndexKey: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(stringValue: String) { self.stringValue = stringValue }
        init(intValue: Int) {
            stringValue = "Index \(intValue)"
            self.intValue = intValue
        }
    }

    /// A super encoder's node, stored in its parent when the encoder is done with it: `JSONEncoder`
    /// writes what a super encoder encoded, or an empty object.
    fileprivate final class SuperEncoder: Encoder {
        let inner: NodeEncoder
        let store: (Node) -> Void
        var codingPath: [any CodingKey] { inner.codingPath }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        init(codingPath: [any CodingKey], store: @escaping (Node) -> Void) {
            inner = NodeEncoder(codingPath: codingPath)
            self.store = store
            store(.object(ObjectBox()))
        }

        deinit { store(inner.node ?? .object(ObjectBox())) }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { inner.container(keyedBy: type) }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { inner.unkeyedContainer() }
        func singleValueContainer() -> any SingleValueEncodingContainer { inner.singleValueContainer() }
    }

    fileprivate struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let box: ObjectBox
        let codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws { box.members[key.stringValue] = .literal("null") }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            box.members[key.stringValue] = try Node.of(value, codingPath: codingPath + [key])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let nested = ObjectBox()
            box.members[key.stringValue] = .object(nested)
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: nested, codingPath: codingPath + [key]))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = ArrayBox()
            box.members[key.stringValue] = .array(nested)
            return UnkeyedContainer(box: nested, codingPath: codingPath + [key])
        }

        mutating func superEncoder() -> any Encoder {
            let box = self.box
            return SuperEncoder(codingPath: codingPath + [IndexKey(stringValue: "super")]) { box.members["super"] = $0 }
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let box = self.box
            return SuperEncoder(codingPath: codingPath + [key]) { box.members[key.stringValue] = $0 }
        }
    }

    fileprivate struct UnkeyedContainer: UnkeyedEncodingContainer {
        let box: ArrayBox
        let codingPath: [any CodingKey]
        var count: Int { box.elements.count }

        private var nextPath: [any CodingKey] { codingPath + [IndexKey(intValue: count)] }

        mutating func encodeNil() throws { box.elements.append(.literal("null")) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            box.elements.append(try Node.of(value, codingPath: nextPath))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let nested = ObjectBox()
            let path = nextPath
            box.elements.append(.object(nested))
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: nested, codingPath: path))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = ArrayBox()
            let path = nextPath
            box.elements.append(.array(nested))
            return UnkeyedContainer(box: nested, codingPath: path)
        }

        mutating func superEncoder() -> any Encoder {
            let box = self.box
            let index = box.elements.count
            return SuperEncoder(codingPath: nextPath) { node in
                if index < box.elements.count { box.elements[index] = node } else { box.elements.append(node) }
            }
        }
    }

    fileprivate struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: NodeEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil() throws { encoder.node = .literal("null") }

        mutating func encode<T: Encodable>(_ value: T) throws {
            encoder.node = try Node.of(value, codingPath: codingPath)
        }
    }
}
