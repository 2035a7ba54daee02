import Testing

@testable import HouseHomeKit

/// HTTP/1.1 as HAP uses it: requests that arrive in pieces or back to back, and bad ones told.
@Suite struct HAPRequestParserTests {
    @Test func requestsInPiecesAndBackToBack() throws {
        var parser = HAPRequestParser()
        let one = "POST /pair-setup HTTP/1.1\r\nHost: bridge\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: 6\r\n\r\n\u{06}\u{01}\u{01}\u{00}\u{01}\u{00}"
        let two = "GET /characteristics?id=1.9,2.10&ev=1 HTTP/1.1\r\n\r\n"
        let bytes = Array((one + two).utf8)
        var requests: [HAPRequest] = []
        for chunk in stride(from: 0, to: bytes.count, by: 7).map({ bytes[$0..<min($0 + 7, bytes.count)] }) {
            parser.append(chunk)
            while let r = try parser.next() { requests.append(r) }
        }
        #expect(requests.count == 2)
        #expect(requests[0].method == "POST" && requests[0].path == "/pair-setup")
        #expect(requests[0].headers["content-type"] == "application/pairing+tlv8")
        #expect(requests[0].body == [6, 1, 1, 0, 1, 0])
        #expect(requests[1].path == "/characteristics")
        #expect(requests[1].parameter("id") == "1.9,2.10")
        #expect(requests[1].parameter("ev") == "1")
        #expect(parser.pendingCount == 0)
    }

    @Test func badRequestsAreTold() {
        for text in ["GARBAGE\r\n\r\n", "GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n", "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
                     "GET / HTTP/1.1\r\nno colon\r\n\r\n", "PUT / HTTP/1.1\r\nContent-Length: 999999999\r\n\r\n"] {
            var parser = HAPRequestParser()
            parser.append(Array(text.utf8))
            #expect(throws: HomeKitError.self) { _ = try parser.next() }
        }
        var parser = HAPRequestParser()
        parser.append([UInt8](repeating: 65, count: HAPRequestParser.maxHeaderBytes + 1))
        #expect(throws: HomeKitError.self) { _ = try parser.next() }
    }

    @Test func responsesAndEvents() {
        let response = HAPResponse.json(207, Array("{}".utf8)).encoded()
        #expect(String(decoding: response, as: UTF8.self) == "HTTP/1.1 207 Multi-Status\r\nContent-Type: application/hap+json\r\nContent-Length: 2\r\n\r\n{}")
        let event = HAPResponse.event(Array("{}".utf8)).encoded()
        #expect(String(decoding: event, as: UTF8.self).hasPrefix("EVENT/1.0 200 OK\r\n"))
    }
}
