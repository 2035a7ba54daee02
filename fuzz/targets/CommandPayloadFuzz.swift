// libFuzzer target: the daemon's command payload parser (device set, mode set, intent request,
// reply target), compiled into the HouseDaemon module by fuzz/build.sh; and the JSON parser
// against Foundation's JSONDecoder.
import Foundation
import HouseCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommandPayload(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let payload = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? CommandPayloadParser.deviceCommand(payload, topic: "house/kitchen/kitchen-light/set")
    _ = try? CommandPayloadParser.modeCommand(payload, topic: "house/mode/set")
    _ = try? CommandPayloadParser.intentRequest(payload, topic: "house/intent/request")
    _ = CommandPayloadParser.replyTarget(payload, layout: TopicLayout(base: "house"))
    if let text = String(validating: payload, as: UTF8.self) {
        _ = CommandPayloadParser.parseTimeRange(text)
        _ = try? PeerRelayCommand.parse(payload)
    }
    // What JSONDecoder reads (within the payload limits), JSONValue(parsing:) reads to the same value.
    if (try? InputLimits.checkJSON(payload)) != nil,
       let expected = try? JSONDecoder().decode(JSONValue.self, from: Data(payload)) {
        let parsed = try? JSONValue(parsing: payload)
        precondition(parsed == expected, "JSONValue(parsing:) read \(String(describing: parsed)), JSONDecoder \(expected)")
    }
    return 0
}
