import Foundation
import HouseTesting
import Testing

/// The tests' mosquitto fixture itself: it returns only once the mosquitto it launched is the
/// one listening on its port.
@Suite("The mosquitto fixture", .enabled(if: MosquittoBroker.shouldRun, "mosquitto not installed (CI=true makes this a failure)"), .timeLimit(.minutes(1)))
struct MosquittoFixtureTests {
    /// Another listener holds the port (another test's, a moment after `freeLoopbackPort()` gave
    /// it out): mosquitto cannot bind and exits. The fixture used to see the port accept (the
    /// other listener) and return a broker that never answers a CONNECT.
    @Test func aTakenPortIsAFailureNotASilentBroker() async throws {
        let listener = try SilentTCPListener()
        do {
            let broker = try await MosquittoBroker.start(port: listener.port)
            await broker.stop()
            Issue.record("the fixture returned a broker on port \(listener.port), which another listener holds")
        } catch let failure as MosquittoBroker.StartFailed {
            #expect(failure.log.contains("Address already in use"))
        }
    }

    /// A start on a free port returns the mosquitto it launched, listening on that port.
    @Test func aStartOnAFreePortAnswers() async throws {
        try await withMosquitto { broker in
            #expect(broker.isRunning)
            #expect(broker.log().contains("Opening ipv4 listen socket on port \(broker.port)."))
            #expect(MosquittoBroker.acceptsConnections(port: broker.port))
        }
    }
}
