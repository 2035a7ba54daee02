import MQTTTopics
import NIOCore

extension MQTTProperties {
    /// Reads a property block (its variable byte integer length, then the properties) for `context`.
    ///
    /// What MQTT 5 calls a malformed packet throws `HouseBrokerError.malformedPacket`: a block
    /// longer than the packet, an identifier unknown or not allowed there, a value cut short,
    /// ill-formed UTF-8 (section 2.2.2.2, MQTT-1.5.4-1). What it calls a protocol error throws
    /// `protocolViolation`: a property given twice where it may appear once, a value out of its
    /// range (a subscription identifier, receive maximum or maximum packet size of 0, a flag byte
    /// other than 0 or 1, a response topic with wildcards). A topic alias of 0 throws
    /// `violation(.topicAliasInvalid, ...)`.
    static func decode(from body: inout ByteBuffer, in context: MQTTPropertyIdentifier.Context) throws -> MQTTProperties {
        let length = try body.readVariableByteInteger("\(context) property length")
        guard var block = body.readSlice(length: length) else {
            throw HouseBrokerError.malformedPacket("\(context) property length \(length) is longer than the rest of the packet")
        }
        var properties = MQTTProperties()
        var seen: UInt64 = 0
        while block.readableBytes > 0 {
            let raw = try block.readVariableByteInteger("\(context) property identifier")
            guard raw <= 0xFF, let id = MQTTPropertyIdentifier(rawValue: UInt8(raw)) else {
                throw HouseBrokerError.malformedPacket("\(context) has the unknown property identifier 0x\(String(raw, radix: 16))")
            }
            let name = "\(context) property \(id) (0x\(String(id.rawValue, radix: 16)))"
            guard id.isAllowed(in: context) else {
                throw HouseBrokerError.malformedPacket("\(name) is not allowed there (MQTT 5 section 2.2.2.2)")
            }
            let bit: UInt64 = 1 << id.rawValue
            if seen & bit != 0 && !id.mayRepeat(in: context) {
                throw HouseBrokerError.protocolViolation("\(name) more than once")
            }
            seen |= bit
            try properties.read(id, name, from: &block)
        }
        return properties
    }

    private mutating func read(_ id: MQTTPropertyIdentifier, _ name: String, from block: inout ByteBuffer) throws {
        func byte() throws -> UInt8 {
            guard let value = block.readInteger(as: UInt8.self) else { throw HouseBrokerError.malformedPacket("\(name) truncated") }
            return value
        }
        func flag() throws -> Bool {
            let value = try byte()
            guard value <= 1 else { throw HouseBrokerError.protocolViolation("\(name) is \(value), not 0 or 1") }
            return value == 1
        }
        func twoBytes() throws -> UInt16 {
            guard let value = block.readInteger(as: UInt16.self) else { throw HouseBrokerError.malformedPacket("\(name) truncated") }
            return value
        }
        func fourBytes() throws -> UInt32 {
            guard let value = block.readInteger(as: UInt32.self) else { throw HouseBrokerError.malformedPacket("\(name) truncated") }
            return value
        }
        func string() throws -> String { try MQTTPacketDecoder.readString(&block, name) }
        func binary() throws -> [UInt8] { Array(try MQTTPacketDecoder.readBinary(&block, name).readableBytesView) }

        switch id {
        case .payloadFormatIndicator:
            let value = try byte()
            guard let format = PayloadFormat(rawValue: value) else {
                throw HouseBrokerError.protocolViolation("\(name) is \(value), not 0 or 1")
            }
            payloadFormat = format
        case .messageExpiryInterval: messageExpiryInterval = try fourBytes()
        case .contentType: contentType = try string()
        case .responseTopic:
            let topic = try string()
            if let problem = MQTTTopic.topicNameProblem(topic) {
                throw HouseBrokerError.protocolViolation("\(name) '\(topic.prefix(80))': \(problem) (MQTT-3.3.2-14)")
            }
            responseTopic = topic
        case .correlationData: correlationData = try binary()
        case .subscriptionIdentifier:
            let value = try block.readVariableByteInteger(name)
            guard value > 0 else { throw HouseBrokerError.protocolViolation("\(name) is 0") }
            subscriptionIdentifiers.append(value)
        case .sessionExpiryInterval: sessionExpiryInterval = try fourBytes()
        case .assignedClientIdentifier: assignedClientIdentifier = try string()
        case .serverKeepAlive: serverKeepAlive = try twoBytes()
        case .authenticationMethod: authenticationMethod = try string()
        case .authenticationData: authenticationData = try binary()
        case .requestProblemInformation: requestProblemInformation = try flag()
        case .willDelayInterval: willDelayInterval = try fourBytes()
        case .requestResponseInformation: requestResponseInformation = try flag()
        case .responseInformation: responseInformation = try string()
        case .serverReference: serverReference = try string()
        case .reasonString: reasonString = try string()
        case .receiveMaximum:
            let value = try twoBytes()
            guard value > 0 else { throw HouseBrokerError.protocolViolation("\(name) is 0") }
            receiveMaximum = value
        case .topicAliasMaximum: topicAliasMaximum = try twoBytes()
        case .topicAlias:
            let value = try twoBytes()
            guard value > 0 else { throw HouseBrokerError.violation(.topicAliasInvalid, "\(name) is 0 (MQTT-3.3.2-8)") }
            topicAlias = value
        case .maximumQoS:
            let value = try byte()
            guard value <= 1, let qos = HouseBroker.QoS(rawValue: value) else {
                throw HouseBrokerError.protocolViolation("\(name) is \(value), not 0 or 1")
            }
            maximumQoS = qos
        case .retainAvailable: retainAvailable = try flag()
        case .userProperty: userProperties.append(MQTTUserProperty(try string(), try string()))
        case .maximumPacketSize:
            let value = try fourBytes()
            guard value > 0 else { throw HouseBrokerError.protocolViolation("\(name) is 0") }
            maximumPacketSize = value
        case .wildcardSubscriptionAvailable: wildcardSubscriptionAvailable = try flag()
        case .subscriptionIdentifierAvailable: subscriptionIdentifiersAvailable = try flag()
        case .sharedSubscriptionAvailable: sharedSubscriptionAvailable = try flag()
        }
    }

    // MARK: - Encoding

    /// The bytes of the properties, without the length in front of them.
    var encodedLength: Int {
        var length = 0
        func string(_ value: String?) { if let value { length += 3 + value.utf8.count } }
        func binary(_ value: [UInt8]?) { if let value { length += 3 + value.count } }
        if payloadFormat != nil { length += 2 }
        if messageExpiryInterval != nil { length += 5 }
        string(contentType)
        string(responseTopic)
        binary(correlationData)
        for identifier in subscriptionIdentifiers { length += 1 + ByteBuffer.variableByteIntegerLength(identifier) }
        if sessionExpiryInterval != nil { length += 5 }
        string(assignedClientIdentifier)
        if serverKeepAlive != nil { length += 3 }
        string(authenticationMethod)
        binary(authenticationData)
        if requestProblemInformation != nil { length += 2 }
        if willDelayInterval != nil { length += 5 }
        if requestResponseInformation != nil { length += 2 }
        string(responseInformation)
        string(serverReference)
        string(reasonString)
        if receiveMaximum != nil { length += 3 }
        if topicAliasMaximum != nil { length += 3 }
        if topicAlias != nil { length += 3 }
        if maximumQoS != nil { length += 2 }
        if retainAvailable != nil { length += 2 }
        for property in userProperties { length += 5 + property.name.utf8.count + property.value.utf8.count }
        if maximumPacketSize != nil { length += 5 }
        if wildcardSubscriptionAvailable != nil { length += 2 }
        if subscriptionIdentifiersAvailable != nil { length += 2 }
        if sharedSubscriptionAvailable != nil { length += 2 }
        return length
    }

    /// The bytes of the block: the length and the properties.
    var encodedBlockLength: Int {
        let length = encodedLength
        return ByteBuffer.variableByteIntegerLength(length) + length
    }

    /// Writes the block: the length, then every property set, in identifier order.
    func writeBlock(into buffer: inout ByteBuffer) {
        buffer.writeVariableByteInteger(encodedLength)
        write(into: &buffer)
    }

    /// Writes every property set, in identifier order, without the length.
    func write(into buffer: inout ByteBuffer) {
        func id(_ identifier: MQTTPropertyIdentifier) { buffer.writeInteger(identifier.rawValue) }
        func byte(_ identifier: MQTTPropertyIdentifier, _ value: UInt8?) {
            if let value { id(identifier); buffer.writeInteger(value) }
        }
        func flag(_ identifier: MQTTPropertyIdentifier, _ value: Bool?) { byte(identifier, value.map { $0 ? 1 : 0 }) }
        func two(_ identifier: MQTTPropertyIdentifier, _ value: UInt16?) {
            if let value { id(identifier); buffer.writeInteger(value) }
        }
        func four(_ identifier: MQTTPropertyIdentifier, _ value: UInt32?) {
            if let value { id(identifier); buffer.writeInteger(value) }
        }
        func string(_ identifier: MQTTPropertyIdentifier, _ value: String?) {
            if let value { id(identifier); buffer.writeMQTTString(value) }
        }
        func binary(_ identifier: MQTTPropertyIdentifier, _ value: [UInt8]?) {
            if let value { id(identifier); buffer.writeMQTTBinary(value) }
        }
        byte(.payloadFormatIndicator, payloadFormat?.rawValue)
        four(.messageExpiryInterval, messageExpiryInterval)
        string(.contentType, contentType)
        string(.responseTopic, responseTopic)
        binary(.correlationData, correlationData)
        for identifier in subscriptionIdentifiers {
            id(.subscriptionIdentifier)
            buffer.writeVariableByteInteger(identifier)
        }
        four(.sessionExpiryInterval, sessionExpiryInterval)
        string(.assignedClientIdentifier, assignedClientIdentifier)
        two(.serverKeepAlive, serverKeepAlive)
        string(.authenticationMethod, authenticationMethod)
        binary(.authenticationData, authenticationData)
        flag(.requestProblemInformation, requestProblemInformation)
        four(.willDelayInterval, willDelayInterval)
        flag(.requestResponseInformation, requestResponseInformation)
        string(.responseInformation, responseInformation)
        string(.serverReference, serverReference)
        string(.reasonString, reasonString)
        two(.receiveMaximum, receiveMaximum)
        two(.topicAliasMaximum, topicAliasMaximum)
        two(.topicAlias, topicAlias)
        byte(.maximumQoS, maximumQoS?.rawValue)
        flag(.retainAvailable, retainAvailable)
        for property in userProperties {
            id(.userProperty)
            buffer.writeMQTTString(property.name)
            buffer.writeMQTTString(property.value)
        }
        four(.maximumPacketSize, maximumPacketSize)
        flag(.wildcardSubscriptionAvailable, wildcardSubscriptionAvailable)
        flag(.subscriptionIdentifierAvailable, subscriptionIdentifiersAvailable)
        flag(.sharedSubscriptionAvailable, sharedSubscriptionAvailable)
    }
}
