import Logging
import NIOCore

extension HomeKitBridge {
    /// One controller's connection: requests in order, plain until pair-verify, then encrypted
    /// frames both ways; a writer task sends answers and events in the order they were queued.
    /// Until pair-verify, a watch closes the connection after `limits.unverifiedIdle` without a
    /// request, and bodies are held to `limits.maxUnverifiedBody`.
    func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, id: Int) async {
        let (outgoing, queue) = AsyncStream<Outgoing>.makeStream()
        await core.register(id, outgoing: queue)
        let channel = connection.channel
        let idle = IdleWatch(deadline: clock.now.advanced(by: limits.unverifiedIdle))
        do {
            try await connection.executeThenClose { inbound, outbound in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        var cipher: SessionCipher?
                        for await item in outgoing {
                            switch item {
                            case .plain(let bytes): try await outbound.write(ByteBuffer(bytes: bytes))
                            case .encrypt(let c): cipher = c
                            case .message(let bytes):
                                if var c = cipher {
                                    let sealed = try c.seal(bytes)
                                    cipher = c
                                    try await outbound.write(ByteBuffer(bytes: sealed))
                                } else {
                                    try await outbound.write(ByteBuffer(bytes: bytes))
                                }
                            case .close:
                                channel.close(promise: nil)
                                return
                            }
                        }
                    }
                    group.addTask { [clock, limits, logger] in
                        while let deadline = idle.deadline {
                            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
                            guard let now = idle.deadline else { return }
                            if clock.now >= now {
                                logger.info("homekit: connection \(id) closed: no pair-verify and no request for \(limits.unverifiedIdle)")
                                queue.yield(.close)
                                return
                            }
                        }
                    }
                    var session = Session(parser: HAPRequestParser(bodyLimit: limits.maxUnverifiedBody))
                    defer {
                        queue.finish()
                        group.cancelAll()
                    }
                    for try await buffer in inbound {
                        var bytes = Array(buffer.readableBytesView)
                        if var c = session.cipher {
                            bytes = try c.open(bytes)
                            session.cipher = c
                        }
                        session.parser.append(bytes)
                        while let request = try session.parser.next() {
                            if session.controllerID == nil { idle.extend(to: clock.now.advanced(by: limits.unverifiedIdle)) }
                            await handle(request, session: &session, connection: id, queue: queue)
                            if session.controllerID != nil {
                                idle.end()
                                session.parser.bodyLimit = HAPRequestParser.maxBodyBytes
                            }
                        }
                    }
                }
            }
        } catch let error as HomeKitError {
            // Whatever a controller sent that HAP cannot have meant (a tampered frame, a request
            // past the limits): the connection is closed, and the log says why.
            logger.notice("homekit: connection \(id) closed: \(error)")
        } catch {
            logger.debug("homekit: connection \(id) closed: \(error)")
        }
        pairing.connectionClosed(id)
        await core.unregister(id)
    }

    /// A connection's own state: its parser, its pairing steps, its session once verified.
    struct Session {
        var parser: HAPRequestParser
        var setup = PairingHandler.SetupState.idle
        var verify = PairingHandler.VerifyState.idle
        var cipher: SessionCipher?
        var controllerID: String?
    }

    func handle(_ request: HAPRequest, session: inout Session, connection: Int, queue: AsyncStream<Outgoing>.Continuation) async {
        let respond = { (response: HAPResponse) -> Void in _ = queue.yield(.message(response.encoded())) }
        do {
            switch (request.method, request.path) {
            case ("POST", "/pair-setup"):
                respond(.tlv(try pairing.pairSetup(try TLV8.decode(request.body), state: &session.setup, connection: connection)))
            case ("POST", "/pair-verify"):
                let (answer, verified) = try pairing.pairVerify(try TLV8.decode(request.body), state: &session.verify)
                respond(.tlv(answer))
                if let verified {
                    session.cipher = verified.cipher
                    session.controllerID = verified.controllerID
                    queue.yield(.encrypt(verified.cipher))
                    await core.verified(connection, controllerID: verified.controllerID)
                }
            case ("POST", "/identify"):
                if pairing.store.isPaired {
                    respond(.json(400, HAPJSON.object([("status", .int(HAPStatus.insufficientPrivileges))]).encoded))
                } else {
                    logger.info("homekit: identify the bridge")
                    respond(HAPResponse(status: 204))
                }
            case (_, "/pairings"), (_, "/accessories"), (_, "/characteristics"):
                guard let controllerID = session.controllerID else {
                    respond(.json(470, HAPJSON.object([("status", .int(HAPStatus.insufficientPrivileges))]).encoded))
                    return
                }
                await handleVerified(request, controllerID: controllerID, connection: connection, respond: respond)
            default:
                respond(HAPResponse(status: 404))
            }
        } catch {
            logger.notice("homekit: bad request \(request.method) \(request.path): \(error)")
            respond(HAPResponse(status: 400))
        }
    }

    func handleVerified(_ request: HAPRequest, controllerID: String, connection: Int, respond: (HAPResponse) -> Void) async {
        switch (request.method, request.path) {
        case ("POST", "/pairings"):
            do {
                let (answer, removed) = try pairing.pairings(try TLV8.decode(request.body), controllerID: controllerID)
                respond(.tlv(answer))
                await core.close(controllers: removed)
            } catch {
                respond(.tlv(PairingHandler.answer(state: 2, error: .unknown)))
            }
        case ("GET", "/accessories"):
            respond(.json(200, await core.accessoriesJSON().encoded))
        case ("GET", "/characteristics"):
            respond(await core.read(request, connection: connection))
        case ("PUT", "/characteristics"):
            guard let body = try? JSONDecoderBox.decode(request.body), case .array(let items)? = body["characteristics"] else {
                respond(.json(400, HAPJSON.object([("status", .int(HAPStatus.invalidValue))]).encoded))
                return
            }
            var statuses: [(BridgeCore.Key?, Int)] = []
            for item in items { statuses.append(await core.write(item, connection: connection)) }
            if statuses.allSatisfy({ $0.1 == 0 }) {
                respond(HAPResponse(status: 204))
            } else {
                let list: [HAPJSON] = statuses.map { key, status in
                    .object([("aid", .int(key?.aid ?? 0)), ("iid", .int(key?.iid ?? 0)), ("status", .int(status))])
                }
                respond(.json(207, HAPJSON.object([("characteristics", .array(list))]).encoded))
            }
        default:
            respond(HAPResponse(status: 405))
        }
    }
}

import Foundation

/// Reads a JSON body into `HAPJSON`.
enum JSONDecoderBox {
    static func decode(_ bytes: [UInt8]) throws -> HAPJSON {
        try JSONDecoder().decode(HAPJSON.self, from: Data(bytes))
    }
}
