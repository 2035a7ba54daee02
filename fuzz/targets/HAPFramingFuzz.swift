// libFuzzer target: the HomeKit bridge's framing of what a controller sends, compiled into the
// HouseHomeKit module by fuzz/build.py: TLV8 (what decodes re-encodes to the same items), the
// HTTP request parser fed the input whole and in two pieces (the same requests either way), the
// encrypted session framing (a forged stream is refused, never trapped on), and HAP's JSON.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHAPFraming(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    if let tlv = try? TLV8.decode(input) {
        precondition((try? TLV8.decode(tlv.encoded())) == tlv, "TLV8 did not survive encoding")
        _ = tlv.split()
    }
    func requests(_ pieces: [ArraySlice<UInt8>]) -> [HAPRequest]? {
        var parser = HAPRequestParser()
        var out: [HAPRequest] = []
        for piece in pieces {
            parser.append(piece)
            do {
                while let request = try parser.next() { out.append(request) }
            } catch {
                return nil
            }
        }
        return out
    }
    let whole = requests([input[...]])
    let cut = size / 3
    let split = requests([input[..<cut], input[cut...]])
    // The same requests whatever the pieces (a failure may come sooner or later: compare what both got).
    if let whole, let split { precondition(whole == split, "requests differ with the input in two pieces") }
    var cipher = SessionCipher(sharedSecret: [UInt8](repeating: 7, count: 32))
    _ = try? cipher.open(input)
    _ = try? JSONDecoder().decode(HAPJSON.self, from: Data(input))
    return 0
}
