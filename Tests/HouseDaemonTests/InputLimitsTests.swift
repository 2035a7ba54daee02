import Foundation
import HouseCore
import Testing
@testable import HouseDaemon

/// Every limit of `InputLimits`, on every parser that applies it: past the limit the input is
/// refused with a reason that names the limit (before any JSON parser sees it), at the limit it
/// is accepted.
@Suite struct InputLimitsTests {
    let topic = "house/intent/request"
    let layout = TopicLayout(base: "house")

    /// The reason of the `DaemonError.malformedPayload` that `parse` throws on `payload`; nil
    /// when it accepts the payload.
    func refusal<T>(_ parse: ([UInt8], String) throws(DaemonError) -> T, _ payload: [UInt8]) -> String? {
        do {
            _ = try parse(payload, topic)
            return nil
        } catch {
            guard case .malformedPayload(let t, let reason) = error, t == topic else { return "unexpected \(error)" }
            return reason
        }
    }

    func refusal<T>(_ parse: ([UInt8], String) throws(DaemonError) -> T, _ payload: String) -> String? {
        refusal(parse, Array(payload.utf8))
    }

    /// The reason `PeerRelayCommand.parse` gives; nil when it accepts the payload.
    func peerRefusal(_ payload: [UInt8]) -> String? {
        do {
            _ = try PeerRelayCommand.parse(payload)
            return nil
        } catch {
            return error.reason
        }
    }

    /// `n` arrays inside each other (`[[...]]`): nesting depth `n`, 2n bytes.
    static func arrays(_ n: Int) -> String { String(repeating: "[", count: n) + String(repeating: "]", count: n) }

    /// `n` objects inside each other (`{"a":{"a":...1}}`): nesting depth `n`, 6n + 1 bytes.
    static func objects(_ n: Int) -> String { String(repeating: #"{"a":"#, count: n) + "1" + String(repeating: "}", count: n) }

    /// Well-formed JSON nested far deeper than the limit, within 64 KiB.
    enum DeepNesting: String, CaseIterable {
        /// 20,000 arrays (40,000 bytes).
        case arrays
        /// 10,000 objects (60,001 bytes).
        case objects

        var json: String {
            switch self {
            case .arrays: InputLimitsTests.arrays(20_000)
            case .objects: InputLimitsTests.objects(10_000)
            }
        }
    }

    // MARK: JSON nesting

    static let depthReason = "JSON nested deeper than 32 levels"

    /// Refused unparsed by every parser, the reply target included (it would have to parse the
    /// payload to read the id).
    @Test(arguments: DeepNesting.allCases)
    func deeplyNestedJSONIsRefusedBeforeItIsParsed(kind: DeepNesting) throws {
        let nesting = kind.json
        let request = #"{"id":"deep-1","reply_to":"test/replies","text":"hi","x":"# + nesting + "}"
        #expect(request.utf8.count <= InputLimits.maximumPayloadSize, "\(kind)")
        #expect(refusal(CommandPayloadParser.intentRequest, request)?.contains(Self.depthReason) == true, "\(kind)")
        #expect(CommandPayloadParser.replyTarget(Array(request.utf8), layout: layout) == nil, "\(kind)")
        let set = #"{"state":"ON","id":"deep-2","x":"# + nesting + "}"
        #expect(refusal(CommandPayloadParser.deviceCommand, set)?.contains(Self.depthReason) == true, "\(kind)")
        let mode = #"{"mode":"night","x":"# + nesting + "}"
        #expect(refusal(CommandPayloadParser.modeCommand, mode)?.contains(Self.depthReason) == true, "\(kind)")
        let relay = #"{"device":"hall-light","state":"ON","x":"# + nesting + "}"
        #expect(peerRefusal(Array(relay.utf8))?.contains(Self.depthReason) == true, "\(kind)")
        // A rule's JSON field condition does not match (the payload is not parsed).
        let rule = #"{"action":"double","x":"# + nesting + "}"
        #expect(!RuleBook.payload(Array(rule.utf8), matches: nil, field: "action", value: "double"), "\(kind)")
        // The bare nesting, with nothing around it.
        let error = #expect(throws: MalformedInput.self) { try InputLimits.checkJSON(Array(nesting.utf8)) }
        #expect(error?.reason.contains(Self.depthReason) == true, "\(kind)")
    }

    /// 32 levels (an object holding 31 arrays, or 32 objects) are parsed; one more is refused.
    @Test func nestingUpToTheLimitIsParsed() throws {
        let limit = InputLimits.maximumJSONDepth
        #expect(limit == 32)
        let within = #"{"id":"d-32","text":"hi","x":"# + Self.arrays(limit - 1) + "}"
        #expect(try CommandPayloadParser.intentRequest(Array(within.utf8), topic: topic).id == "d-32")
        let over = #"{"id":"d-33","text":"hi","x":"# + Self.arrays(limit) + "}"
        #expect(refusal(CommandPayloadParser.intentRequest, over)?.contains(Self.depthReason) == true)
        // The reply target of the refused one cannot be read either: it is not parsed.
        #expect(CommandPayloadParser.replyTarget(Array(over.utf8), layout: layout) == nil)
        try InputLimits.checkJSON(Array(Self.objects(limit).utf8))
        #expect(throws: MalformedInput.self) { try InputLimits.checkJSON(Array(Self.objects(limit + 1).utf8)) }
        // Rules match a JSON field at the limit.
        let rule = #"{"action":"double","x":"# + Self.arrays(limit - 1) + "}"
        #expect(RuleBook.payload(Array(rule.utf8), matches: nil, field: "action", value: "double"))
    }

    /// Brackets inside strings (escaped quotes included) are text, not nesting.
    @Test func bracketsInStringsAreNotNesting() throws {
        let brackets = String(repeating: "[{", count: 100)
        let request = #"{"id":"s-1","text":"say \"\#(brackets)\" \\\#(brackets)"}"#
        let parsed = try CommandPayloadParser.intentRequest(Array(request.utf8), topic: topic)
        #expect(parsed.body == .text(#"say ""# + brackets + #"" \"# + brackets))
        // A string that ends in an escaped backslash ends there: what follows is nesting again.
        let afterBackslash = #"{"id":"s-2","text":"x\\","y":"# + Self.arrays(33) + "}"
        #expect(refusal(CommandPayloadParser.intentRequest, afterBackslash)?.contains(Self.depthReason) == true)
        // A stray closing bracket does not hide the openings after it.
        let stray = Array((String(repeating: "]", count: 100) + Self.arrays(33)).utf8)
        #expect(throws: MalformedInput.self) { try InputLimits.checkJSON(stray) }
    }

    /// JSON with NUL bytes (UTF-16, say, which the parsers would detect and read) is refused:
    /// the nesting scan reads UTF-8.
    @Test func jsonWithNULBytesIsRefused() {
        let utf16 = #"{"id":"u-1","text":"hi"}"#.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)] }
        #expect(refusal(CommandPayloadParser.intentRequest, utf16)?.contains("JSON must be UTF-8 text without NUL bytes") == true)
        #expect(CommandPayloadParser.replyTarget(utf16, layout: layout) == nil)
    }

    // MARK: Payload size

    /// An intent request of exactly `size` bytes: `{"id":"big-1","text":"hi","pad":"xxx..."}`.
    static func request(ofSize size: Int) -> [UInt8] {
        let head = #"{"id":"big-1","reply_to":"test/replies","text":"hi","pad":""#, tail = #""}"#
        return Array((head + String(repeating: "x", count: size - head.utf8.count - tail.utf8.count) + tail).utf8)
    }

    @Test func payloadsUpToTheSizeLimitAreParsedAndLargerOnesRefused() throws {
        let limit = InputLimits.maximumPayloadSize
        #expect(limit == 65_536)
        let within = Self.request(ofSize: limit)
        #expect(within.count == limit)
        #expect(try CommandPayloadParser.intentRequest(within, topic: topic).id == "big-1")
        #expect(CommandPayloadParser.replyTarget(within, layout: layout)! == ("big-1", "test/replies"))

        let over = Self.request(ofSize: limit + 1)
        let reason = "payload of 65537 bytes is larger than the limit of 65536 bytes"
        #expect(refusal(CommandPayloadParser.intentRequest, over) == reason)
        #expect(refusal(CommandPayloadParser.deviceCommand, over) == reason)
        #expect(refusal(CommandPayloadParser.modeCommand, over) == reason)
        #expect(peerRefusal(over) == reason)
        // Not parsed for its reply target either.
        #expect(CommandPayloadParser.replyTarget(over, layout: layout) == nil)

        // Relay commands between controllers share the limit (they had 4 KiB of their own).
        let relayHead = #"{"device":"hall-light","state":"ON","pad":""#
        let relay = relayHead + String(repeating: "x", count: limit - relayHead.utf8.count - 2) + #""}"#
        #expect(try PeerRelayCommand.parse(Array(relay.utf8)) == PeerRelayCommand(device: "hall-light", state: .on))
        #expect(peerRefusal(Array((relay + " ").utf8)) == reason)
    }

    // MARK: Reply topics

    static func topic(levels: Int) -> String { Array(repeating: "r", count: levels).joined(separator: "/") }

    @Test func replyTopicsUpTo200LevelsAreUsedAndDeeperOnesRefused() throws {
        #expect(InputLimits.maximumTopicLevels == 200)
        let within = Self.topic(levels: 200)
        let set = try CommandPayloadParser.deviceCommand(Array(#"{"state":"ON","id":"l-1","reply_to":"\#(within)"}"#.utf8), topic: topic)
        #expect(set.replyTo == within)

        let over = Self.topic(levels: 201)
        let reason = "\"reply_to\" has 201 levels, more than the limit of 200"
        let request = #"{"id":"l-2","text":"hi","reply_to":"\#(over)"}"#
        #expect(refusal(CommandPayloadParser.intentRequest, request) == reason)
        #expect(refusal(CommandPayloadParser.deviceCommand, #"{"state":"ON","reply_to":"\#(over)"}"#) == reason)
        #expect(refusal(CommandPayloadParser.modeCommand, #"{"mode":"night","reply_to":"\#(over)"}"#) == reason)
        // The id is valid, so the error is answered, on the default reply topic.
        #expect(CommandPayloadParser.replyTarget(Array(request.utf8), layout: layout)! == ("l-2", "house/intent/response/l-2"))
        let valid = #"{"id":"l-3","intent":"dance","reply_to":"\#(within)"}"#
        #expect(CommandPayloadParser.replyTarget(Array(valid.utf8), layout: layout)! == ("l-3", within))
    }

    @Test func replyTopicsUpTo1024BytesAreUsedAndLongerOnesRefused() throws {
        #expect(InputLimits.maximumTopicLength == 1024)
        let within = "test/" + String(repeating: "x", count: 1019)
        #expect(within.utf8.count == 1024)
        let request = try CommandPayloadParser.intentRequest(Array(#"{"id":"t-1","text":"hi","reply_to":"\#(within)"}"#.utf8), topic: topic)
        #expect(request.replyTo == within)

        let over = within + "x"
        let reason = "\"reply_to\" is 1025 bytes long, more than the limit of 1024"
        #expect(refusal(CommandPayloadParser.intentRequest, #"{"id":"t-2","text":"hi","reply_to":"\#(over)"}"#) == reason)
        #expect(refusal(CommandPayloadParser.deviceCommand, #"{"state":"OFF","reply_to":"\#(over)"}"#) == reason)
        #expect(CommandPayloadParser.replyTarget(Array(#"{"id":"t-2","reply_to":"\#(over)"}"#.utf8), layout: layout)!
            == ("t-2", "house/intent/response/t-2"))
        // Wildcards, NUL and the empty topic stay refused.
        for bad in ["a/#", "a/+/b", "", "a\\u0000b"] {
            #expect(refusal(CommandPayloadParser.intentRequest, #"{"id":"t-3","text":"hi","reply_to":"\#(bad)"}"#)?
                .contains("must be a non-empty topic without wildcards") == true, "\(bad)")
        }
    }

    // MARK: Ids and texts

    @Test func idsUpTo128BytesAreAcceptedAndLongerOnesRefused() throws {
        #expect(InputLimits.maximumIDLength == 128)
        let within = String(repeating: "é", count: 64)  // 128 bytes
        #expect(try CommandPayloadParser.intentRequest(Array(#"{"id":"\#(within)","text":"hi"}"#.utf8), topic: topic).id == within)
        #expect(try CommandPayloadParser.deviceCommand(Array(#"{"state":"ON","id":"\#(within)"}"#.utf8), topic: topic).id == within)
        #expect(CommandPayloadParser.replyTarget(Array(#"{"id":"\#(within)"}"#.utf8), layout: layout)?.id == within)

        let over = within + "e"
        let reason = "\"id\" is 129 bytes long, more than the limit of 128"
        #expect(refusal(CommandPayloadParser.intentRequest, #"{"id":"\#(over)","text":"hi","reply_to":"test/r"}"#) == reason)
        #expect(refusal(CommandPayloadParser.deviceCommand, #"{"state":"ON","id":"\#(over)"}"#) == reason)
        #expect(refusal(CommandPayloadParser.modeCommand, #"{"mode":"night","id":"\#(over)"}"#) == reason)
        // An id past the limit is not answered, not even on a valid reply topic.
        #expect(CommandPayloadParser.replyTarget(Array(#"{"id":"\#(over)","reply_to":"test/r"}"#.utf8), layout: layout) == nil)
        // A relay command's device id has the same limit.
        let device = String(repeating: "d", count: 129)
        #expect(peerRefusal(Array(#"{"device":"\#(device)","state":"ON"}"#.utf8)) == "\"device\" is 129 bytes long, more than the limit of 128")
    }

    @Test func textsUpTo1000CharactersAreAcceptedAndLongerOnesRefused() throws {
        #expect(InputLimits.maximumTextLength == 1000)
        let within = String(repeating: "ä", count: 1000)  // 2000 bytes: the limit counts characters
        #expect(try CommandPayloadParser.intentRequest(Array(#"{"id":"x-1","text":"\#(within)"}"#.utf8), topic: topic).body == .text(within))

        let request = #"{"id":"x-2","text":"\#(within)ä","reply_to":"test/r"}"#
        #expect(refusal(CommandPayloadParser.intentRequest, request) == "\"text\" is 1001 characters long, more than the limit of 1000")
        // Id and reply topic are valid: the refusal is answered there.
        #expect(CommandPayloadParser.replyTarget(Array(request.utf8), layout: layout)! == ("x-2", "test/r"))
    }

    // MARK: Logs

    /// What a log line or a reason quotes of an input: at most 40 characters.
    @Test func excerptsAreCut() {
        #expect(InputLimits.excerpt("online") == "online")
        let long = String(repeating: "x", count: 70_000)
        #expect(InputLimits.excerpt(long) == String(repeating: "x", count: 40) + "...")
        #expect(InputLimits.excerpt(Array(long.utf8)) == String(repeating: "x", count: 40) + "...")
        #expect(InputLimits.excerpt([0xFF, 0x4F, 0x4E]) == "\u{FFFD}ON")
        // An unknown answer key is quoted cut in the reason (which goes to the log and the reply).
        let key = String(repeating: "k", count: 5000)
        let reason = refusal(CommandPayloadParser.intentRequest, #"{"id":"a-1","text":"hi","answers":{"\#(key)":1}}"#)
        #expect(reason == "answer \"\(String(repeating: "k", count: 40))...\" must be a string")
    }
}
