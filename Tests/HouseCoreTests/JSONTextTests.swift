import Foundation
import HouseCore
import HouseTesting
import Testing

/// `SortedJSONEncoder` writes what Foundation's `JSONEncoder` writes with `.sortedKeys`, and
/// `JSONValue(parsing:)` reads what `JSONDecoder` reads, to the same values.
struct JSONTextTests {
    private struct Sample: Codable {
        struct Inner: Codable {
            var count: Int
            var note: String?
            var readings: [String: Double]
            var small: [Int8]
        }

        enum Kind: String, Codable { case on, off }

        var text: String
        var inner: Inner
        var kinds: [Kind]
        var flag: Bool
        var missing: Int?
        var unsigned: UInt16
        var ratio: Float
        var tiny: Double
        var topic: String
        var nested: [[String: [Int]]]
    }

    private static let sample = Sample(
        text: "quote \" backslash \\ \u{8}\u{C}\n\r\t\u{1}\u{1F} é 😀",
        inner: .init(count: -3, note: nil, readings: ["b": 1.5, "a": 20, "B": 1e16, "relay10": 0.1, "relay2": -0.0, "é": 1e-7],
                     small: [1, -2]),
        kinds: [.on, .off], flag: true, missing: nil, unsigned: 7, ratio: 2.5, tiny: 123_456.789, topic: "house/kitchen/+/set",
        nested: [["x": [1, 2]], [:]])

    private static func foundation<T: Encodable>(_ value: T, slashes: Bool) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = slashes ? [.sortedKeys] : [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test(arguments: [true, false])
    func encoderWritesWhatJSONEncoderWrites(escapingSlashes: Bool) throws {
        let ours = try SortedJSONEncoder(escapingSlashes: escapingSlashes).encode(Self.sample)
        #expect(ours == (try Self.foundation(Self.sample, slashes: escapingSlashes)))
        #expect(ours.contains(escapingSlashes ? #"house\/kitchen"# : "house/kitchen/+/set"))
        // Keys by their UTF-8 bytes: "B" before "a", "relay10" before "relay2".
        #expect(ours.contains(#"{"B":1e+16,"a":20,"b":1.5,"relay10":0.1,"relay2":-0,"é":1e-07}"#))
        #expect(ours.contains(#"\b\f\n\r\t\u0001\u001f"#))
    }

    @Test func theHouseOverviewIsTheSameText() async throws {
        let overview = await HouseEngine(configuration: try HouseFixtures.exampleConfiguration()).overview()
        for slashes in [true, false] {
            #expect(try SortedJSONEncoder(escapingSlashes: slashes).encode(overview) == (try Self.foundation(overview, slashes: slashes)))
        }
        #expect(overview.sortedJSON() == (try Self.foundation(overview, slashes: true)))
    }

    @Test func scalarsAndEmptyContainers() throws {
        let encoder = SortedJSONEncoder()
        #expect(try encoder.encode(3.0) == "3")
        #expect(try encoder.encode("a/b") == #""a\/b""#)
        #expect(try encoder.encode([Int]()) == "[]")
        #expect(try encoder.encode([String: Int]()) == "{}")
        #expect(try encoder.encode([1: "one"]) == #"{"1":"one"}"#)
        #expect(try encoder.encode(Optional<Int>.none) == "null")
    }

    @Test func notANumberIsRefused() {
        #expect(throws: EncodingError.self) { try SortedJSONEncoder().encode(["x": Double.nan]) }
        #expect([Double.infinity].sortedJSON(fallback: "refused") == "refused")
    }

    @Test(arguments: [
        #"{"a":[1,2.5,-0,1e3,true,null,"x\u00e9\ud83d\ude00\n\/"]}"#,
        " \t\n 12 \r\n",
        #"{"state":"ON","brightness":40,"reply_to":"a/b"}"#,
        #"[{"x":{}},[],"\\\"",-12.5e-3,false]"#,
        #"{"a":1,"a":2}"#,
        "[1,]",
        #"{"a":1 , }"#,
        "\"\u{7F} é\"",
        "\u{FEFF}{\"state\":\"ON\"}",
    ])
    func parserReadsWhatJSONDecoderReads(text: String) throws {
        let expected = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(try JSONValue(parsing: Array(text.utf8)) == expected)
    }

    @Test(arguments: [
        ("", "expected a value at the end"),
        ("01", "expected the end of the text after the value at byte 1"),
        ("[1,,2]", "expected a value at byte 3"),
        (#"{"a" 1}"#, "expected ':' after a member name at byte 5"),
        (#"{a:1}"#, "expected a member name in quotes at byte 1"),
        (#"["x"#, "expected '\"' to end a string at the end"),
        ("\"a\u{1}\"", "expected control characters to be escaped in a string at byte 2"),
        (#""\ud800""#, "expected a low surrogate after a high one"),
        (#""\udc00""#, "expected a high surrogate before a low one"),
        (#""\x""#, "expected one of"),
        (#""\u12G4""#, "expected four hex digits after \\u"),
        ("1e400", "expected a number a Double can hold at byte 0"),
        ("-", "expected a digit at the end"),
        ("1.", "expected a digit after the decimal point"),
        ("1e+", "expected a digit in the exponent"),
        ("nul", "expected a value at byte 0"),
        ("[1] x", "expected the end of the text after the value at byte 4"),
    ])
    func parserSaysWhatItExpectedWhere(text: String, reason: String) {
        #expect {
            _ = try JSONValue(parsing: Array(text.utf8))
        } throws: { error in
            let said = (error as? MalformedInput)?.reason ?? ""
            return said.hasPrefix("invalid JSON: ") && said.contains(reason)
        }
    }

    @Test func parserRefusesInvalidUTF8AndDeepNesting() throws {
        #expect(throws: MalformedInput("invalid JSON: a string is not valid UTF-8")) {
            _ = try JSONValue(parsing: [0x22, 0xC3, 0x28, 0x22])
        }
        let deep = Array((String(repeating: "[", count: 33) + String(repeating: "]", count: 33)).utf8)
        #expect(throws: MalformedInput("JSON nested deeper than 32 levels (the limit for arrays and objects)")) {
            _ = try JSONValue(parsing: deep)
        }
        #expect((try? JSONValue(parsing: Array(deep.dropFirst().dropLast()))) != nil)
        // Valid JSON that JSONDecoder refuses is read.
        #expect(try JSONValue(parsing: Array("0e3".utf8)) == .number(0))
    }
}

@Suite struct TrimmedWhitespaceTests {
    /// The same as Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)`, which it
    /// replaces on the topic API's path.
    @Test(arguments: ["ON", " ON", "ON\n", "\t\r\n ON \u{A0}\u{2028}", "  ", "", "O N", " a\u{3000}b ", "\u{85}x\u{1680}", "é ", " 🙂\u{200A}"])
    func trimsAsFoundationDoes(_ text: String) {
        #expect(text.trimmedWhitespace == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
