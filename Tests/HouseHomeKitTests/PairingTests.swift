import Foundation
import HouseHomeKitTesting
import Testing

@testable import HouseHomeKit

/// Pair-setup, pair-verify and the pairings endpoint on the handler, with the files in a
/// temporary state directory: a right code pairs, a wrong one is counted and refused, a paired
/// bridge is unavailable, one setup at a time, the pairings survive a restart, the files are 0600.
@Suite struct PairingTests {
    static let code = "031-45-154"

    /// A handler over a fresh state directory, removed after `body`.
    static func withHandler(_ body: (PairingHandler, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("homekit-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(try handler(directory), directory)
    }

    static func handler(_ directory: String) throws -> PairingHandler {
        PairingHandler(identity: try AccessoryIdentity.loadOrCreate(in: directory), setupCode: try SetupCode(code), store: try PairingStore(directory: directory))
    }

    @Test func pairsVerifiesAndSurvivesARestart() async throws {
        try await Self.withHandler { handler, directory in
            let controller = HAPTestController()
            let paired = try await controller.pairSetup(handler, code: Self.code)
            #expect(paired == .paired(accessoryID: handler.identity.pairingID, accessoryKey: handler.identity.publicKey))
            #expect(handler.store.pairings.map(\.id) == [controller.id])
            guard case .verified(var cipher) = try await controller.pairVerify(handler) else {
                Issue.record("pair-verify failed")
                return
            }
            _ = try cipher.seal([1, 2, 3])
            // Paired: a second pair-setup is refused.
            let again = try await HAPTestController(id: "other").pairSetup(handler, code: Self.code)
            #expect(again == .refused(state: 2, error: .unavailable))
            // A restart: the same identity and pairings from the files, and verify still works.
            let restarted = try Self.handler(directory)
            #expect(restarted.identity.pairingID == handler.identity.pairingID)
            #expect(restarted.identity.publicKey == handler.identity.publicKey)
            guard case .verified = try await controller.pairVerify(restarted) else {
                Issue.record("pair-verify after a restart failed")
                return
            }
            // A controller that never paired: refused.
            guard case .refused(.authentication) = try await HAPTestController(id: "stranger").pairVerify(restarted) else {
                Issue.record("a stranger was verified")
                return
            }
            for file in ["accessory.json", "pairings.json"] {
                let mode = try FileManager.default.attributesOfItem(atPath: directory + "/" + file)[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(file)")
            }
        }
    }

    @Test func wrongCodesAreCountedAndLimited() async throws {
        try await Self.withHandler { handler, _ in
            let controller = HAPTestController()
            let m4 = try await controller.pairSetup(handler, code: "031-45-155")
            #expect(m4 == .refused(state: 4, error: .authentication))
            #expect(handler.store.unsuccessfulAttempts == 1)
            #expect(!handler.store.isPaired)
            // Up to the limit, then MaxTries at M2, even with the right code.
            for _ in 1..<PairingStore.maxUnsuccessfulAttempts { _ = try handler.store.countUnsuccessfulAttempt() }
            let refused = try await controller.pairSetup(handler, code: Self.code)
            #expect(refused == .refused(state: 2, error: .maxTries))
        }
    }

    @Test func oneSetupAtATime() async throws {
        try await Self.withHandler { handler, _ in
            var first = PairingHandler.SetupState.idle
            var m1 = TLV8()
            m1.append(.state, byte: 1)
            m1.append(.method, byte: 0)
            #expect(try handler.pairSetup(m1, state: &first, connection: 1).byte(.error) == nil)
            let busy = try await HAPTestController().pairSetup(handler, code: Self.code, connection: 2)
            #expect(busy == .refused(state: 2, error: .busy))
            // The first connection goes: the next may start (SRP in a debug build takes seconds:
            // M2 is enough here).
            handler.connectionClosed(1)
            var second = PairingHandler.SetupState.idle
            let m2 = try handler.pairSetup(m1, state: &second, connection: 2)
            #expect(m2.byte(.state) == 2 && m2.byte(.error) == nil && m2[.publicKey]?.count == 384)
        }
    }

    @Test func pairingsAddListRemove() async throws {
        try await Self.withHandler { handler, _ in
            let admin = HAPTestController(id: "admin")
            _ = try await admin.pairSetup(handler, code: Self.code)
            var add = TLV8()
            add.append(.state, byte: 1)
            add.append(.method, byte: PairingMethod.addPairing.rawValue)
            add.append(.identifier, Array("guest".utf8))
            add.append(.publicKey, [UInt8](repeating: 9, count: 32))
            add.append(.permissions, byte: 0)
            #expect(try handler.pairings(add, controllerID: "admin").0.byte(.error) == nil)
            // A guest may not add or remove.
            #expect(try handler.pairings(add, controllerID: "guest").0.byte(.error) == TLVErrorCode.authentication.rawValue)
            var list = TLV8()
            list.append(.state, byte: 1)
            list.append(.method, byte: PairingMethod.listPairings.rawValue)
            let entries = try handler.pairings(list, controllerID: "admin").0.split()
            #expect(entries.map { $0[.identifier].map { String(decoding: $0, as: UTF8.self) } } == ["admin", "guest"])
            #expect(entries.map { $0.byte(.permissions) } == [1, 0])
            // The last admin goes: every pairing goes, and the bridge may be paired again.
            var remove = TLV8()
            remove.append(.state, byte: 1)
            remove.append(.method, byte: PairingMethod.removePairing.rawValue)
            remove.append(.identifier, Array("admin".utf8))
            let (answer, removed) = try handler.pairings(remove, controllerID: "admin")
            #expect(answer.byte(.error) == nil && answer.byte(.state) == 2)
            #expect(Set(removed) == ["admin", "guest"])
            #expect(!handler.store.isPaired)
        }
    }

    @Test func setupCodes() throws {
        #expect(try SetupCode("03145154").text == "031-45-154")
        #expect("\(try SetupCode("031-45-154"))" == "XXX-XX-XXX")
        for bad in ["123-45-678", "111-11-111", "031-45-15", "0314-5-154", "abc-de-fgh", ""] {
            #expect(throws: HomeKitError.invalidSetupCode) { try SetupCode(bad) }
        }
        #expect(try SetupCode(SetupCode.random().text).text.count == 10)
    }
}
