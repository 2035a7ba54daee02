// libFuzzer target: HouseBroker's MQTT packet framing and parsing (compiled into the HouseBroker
// module by fuzz/build.sh, so the internal decoder is reachable and instrumented).
import NIOCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBrokerPacket(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var buffer = ByteBufferAllocator().buffer(capacity: size)
    buffer.writeBytes(UnsafeRawBufferPointer(start: data, count: size))
    // Frame packets one after the other as the channel handler does; stop at the first error.
    while buffer.readableBytes > 0 {
        guard let framed = try? MQTTPacketDecoder.peekFixedHeader(buffer) else { break }
        let (header, remaining, headerLength) = framed
        guard remaining <= 1 << 20, buffer.readableBytes >= headerLength + remaining else { break }
        buffer.moveReaderIndex(forwardBy: headerLength)
        guard var body = buffer.readSlice(length: remaining) else { break }
        guard (try? MQTTPacketDecoder.parse(header: header, body: &body)) != nil else { break }
    }
    return 0
}
