import HouseBroker
import HouseTesting
import Testing

@Suite("Password file and ACL")
struct AuthenticationTests {
    static let passwords = """
        # users
        alice:wonderland
        \(PasswordFile.hashedEntry(user: "bob", password: "builder", salt: "s4lt"))
        """

    @Test("password file: right password 0, wrong 4, unknown user 4, anonymous 5 (or allowed)")
    func passwords() async throws {
        let file = try PasswordFile(contents: Self.passwords)
        try await withTestBroker(configure: { $0.passwordFile = file }) { broker in
            _ = try await RawMQTTClient.connect(port: broker.port, clientID: "a", username: "alice", password: "wonderland")
            _ = try await RawMQTTClient.connect(port: broker.port, clientID: "b", username: "bob", password: "builder")
            for (user, password, code) in [("alice", "nope", UInt8(4)), ("bob", "wonderland", 4), ("eve", "x", 4)] {
                let client = try await RawMQTTClient.open(port: broker.port)
                try await client.send(RawMQTT.connect(clientID: "x", username: user, password: password))
                #expect(try await client.next() == .connack(sessionPresent: false, code: code))
                try await client.expectClosed()
            }
            let anonymous = try await RawMQTTClient.open(port: broker.port)
            try await anonymous.send(RawMQTT.connect(clientID: "anon"))
            #expect(try await anonymous.next() == .connack(sessionPresent: false, code: 5))
            try await anonymous.expectClosed()
        }
        try await withTestBroker(configure: { $0.passwordFile = file; $0.allowAnonymous = true }) { broker in
            _ = try await RawMQTTClient.connect(port: broker.port, clientID: "anon")
        }
    }

    @Test("password file parse errors name the line")
    func passwordFileErrors() throws {
        #expect(throws: HouseBrokerError.invalidConfigurationFile(path: "pw", line: 2, message: "expected 'user:password'")) {
            try PasswordFile(contents: "a:b\nnocolon\n", path: "pw")
        }
        #expect(throws: HouseBrokerError.self) { try PasswordFile(contents: "a:$sha256$salt$abc", path: "pw") }
        #expect(throws: HouseBrokerError.self) { try PasswordFile(path: "/nonexistent/passwords") }
        let file = try PasswordFile(contents: "a:pass:with:colons\n")
        #expect(file.check(user: "a", password: Array("pass:with:colons".utf8)))
    }

    static let acl = """
        # anonymous clients
        topic read public/#
        user alice
        topic readwrite house/#
        topic write alarms/+/set
        user bob
        topic read house/+/state
        pattern readwrite users/%u/#
        pattern read clients/%c
        """

    @Test("ACL parse and decisions")
    func aclDecisions() throws {
        let acl = try AccessControlList(contents: Self.acl)
        #expect(acl.mayPublish(topic: "house/a/set", user: "alice", clientID: "c"))
        #expect(acl.mayPublish(topic: "alarms/door/set", user: "alice", clientID: "c"))
        #expect(!acl.maySubscribe(filter: "alarms/#", user: "alice", clientID: "c"))
        #expect(!acl.mayPublish(topic: "house/a/state", user: "bob", clientID: "c"))
        #expect(acl.maySubscribe(filter: "house/+/state", user: "bob", clientID: "c"))
        #expect(acl.maySubscribe(filter: "house/lamp/state", user: "bob", clientID: "c"))
        #expect(!acl.maySubscribe(filter: "house/#", user: "bob", clientID: "c"))
        #expect(acl.mayPublish(topic: "users/bob/x", user: "bob", clientID: "c"))
        #expect(!acl.mayPublish(topic: "users/alice/x", user: "bob", clientID: "c"))
        #expect(acl.maySubscribe(filter: "clients/c9", user: nil, clientID: "c9"))
        #expect(acl.maySubscribe(filter: "public/+", user: nil, clientID: "x"))
        #expect(!acl.mayPublish(topic: "public/a", user: nil, clientID: "x"))
        #expect(!acl.maySubscribe(filter: "users/+/x", user: nil, clientID: "x"))
        #expect(throws: HouseBrokerError.invalidConfigurationFile(path: "acl", line: 1, message: "access must be read, write, readwrite or deny, not 'rw'")) {
            try AccessControlList(contents: "topic rw a", path: "acl")
        }
        #expect(throws: HouseBrokerError.self) { try AccessControlList(contents: "topic read a/#/b") }
        #expect(throws: HouseBrokerError.self) { try AccessControlList(contents: "group x") }
    }

    @Test("ACL on the wire: refused subscriptions get 0x80, refused publishes are acked and dropped")
    func aclOnTheWire() async throws {
        let acl = try AccessControlList(contents: Self.acl)
        try await withTestBroker(configure: { $0.accessControl = acl }) { broker in
            let bob = try await RawMQTTClient.connect(port: broker.port, clientID: "bob", username: "bob", password: "x")
            #expect(try await bob.subscribe([("house/+/state", 1), ("house/#", 1), ("users/bob/#", 0)]) == [1, 0x80, 0])
            let alice = try await RawMQTTClient.connect(port: broker.port, clientID: "alice", username: "alice")
            try await alice.publish("house/lamp/state", "ON", qos: 1)
            #expect(try await bob.expectPublish().payloadString == "ON")
            try await bob.publish("house/lamp/state", "forged", qos: 2)  // acked, dropped
            try await alice.publish("users/bob/inbox", "hi", qos: 1)     // alice may not write there
            try await bob.expectNothingPending()
            let stats = try await broker.waitUntil { $0.statistics.publishesDenied == 2 }.statistics
            #expect(stats.messagesReceived == 3)
        }
    }
}
