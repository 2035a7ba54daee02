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
    // Where JSONDecoder and JSONValue(parsing:) both read a payload, they read the same value. (They
    // differ on what they accept in two known ways: JSONDecoder refuses `0e3`, which is JSON, and
    // never checks the strings of a repeated member name's later values, which it drops.)
    if (try? InputLimits.checkJSON(payload)) != nil,
       let expected = try? JSONDecoder().decode(JSONValue.self, from: Data(payload)),
       let parsed = try? JSONValue(parsing: payload) {
        precondition(parsed == expected, "JSONValue(parsing:) read \(parsed), JSONDecoder \(expected)")
    }
    return 0
}
