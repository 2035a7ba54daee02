// libFuzzer target: HouseBroker's MQTT packet framing and parsing, MQTT 3.1.1 and MQTT 5
// (compiled into the HouseBroker module by fuzz/build.py, so the internal decoder is reachable
// and instrumented).
//
// Every framed packet is parsed as both versions. What the MQTT 5 parser accepts must also
// survive the way back: its properties encoded and decoded again give the same value, and a
// PUBLISH's topic alias is resolved as a connection would.
import NIOCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBrokerPacket(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var buffer = ByteBufferAllocator().buffer(capacity: size)
    buffer.writeBytes(UnsafeRawBufferPointer(start: data, count: size))
    var aliases = TopicAliases(inboundMaximum: 10, outboundMaximum: 10)
    // Frame packets one after the other as the channel handler does; stop at the first error.
    while buffer.readableBytes > 0 {
        guard let framed = try? MQTTPacketDecoder.peekFixedHeader(buffer) else { break }
        let (header, remaining, headerLength) = framed
        guard remaining <= 1 << 20, buffer.readableBytes >= headerLength + remaining else { break }
        buffer.moveReaderIndex(forwardBy: headerLength)
        guard let body = buffer.readSlice(length: remaining) else { break }
        var v311 = body
        let accepted311 = (try? MQTTPacketDecoder.parse(header: header, body: &v311, version: .v311)) != nil
        var v5 = body
        let packet = try? MQTTPacketDecoder.parse(header: header, body: &v5, version: .v5)
        if let packet { checkRoundTrip(packet, aliases: &aliases) }
        if !accepted311 && packet == nil { break }
    }
    return 0
}

/// Properties the MQTT 5 parser accepted, written and read again, must come back the same.
private func checkRoundTrip(_ packet: MQTTPacket, aliases: inout TopicAliases) {
    func check(_ properties: MQTTProperties, _ context: MQTTPropertyIdentifier.Context) {
        var written = ByteBufferAllocator().buffer(capacity: properties.encodedBlockLength)
        properties.writeBlock(into: &written)
        guard written.readableBytes == properties.encodedBlockLength else {
            fatalError("\(context): wrote \(written.readableBytes) bytes, counted \(properties.encodedBlockLength)")
        }
        guard let again = try? MQTTProperties.decode(from: &written, in: context), again == properties else {
            fatalError("\(context): properties do not survive encoding: \(properties)")
        }
    }
    switch packet {
    case .connect(let connect):
        check(connect.properties, .packet(.connect))
        if let forwarded = connect.will?.properties?.forwarded { check(forwarded, .will) }
    case .publish(var publish):
        if let forwarded = publish.properties?.forwarded { check(forwarded, .packet(.publish)) }
        try? aliases.resolve(&publish, maximumTopicLength: 4096)
        // What the broker would send of it to an MQTT 5 client: counted and written alike.
        publish.subscriptionIdentifiers = [1, 268_435_455]
        publish.messageExpiryInterval = 60
        let outgoing = MQTTPacket.publish(publish)
        var written = ByteBufferAllocator().buffer(capacity: 64)
        outgoing.encode(into: &written, version: .v5)
        guard written.readableBytes == outgoing.encodedSize(version: .v5) else {
            fatalError("PUBLISH: wrote \(written.readableBytes) bytes, counted \(outgoing.encodedSize(version: .v5))")
        }
    case .disconnect(let disconnect):
        check(disconnect.properties, .packet(.disconnect))
    case .auth(_, let properties):
        check(properties, .packet(.auth))
    default:
        break
    }
}
