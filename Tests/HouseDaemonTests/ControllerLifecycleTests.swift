import Foundation
import HouseTesting
import Testing
@testable import HouseDaemon

/// A stopped controller lets go of everything it made: nothing keeps its MQTT client (and the
/// libmosquitto handle, with its socket pair) alive after it. A cycle here leaked two descriptors
/// per controller: over the test suite, libmosquitto's select() then met descriptors above 1023
/// and connects hung.
@Suite struct ControllerLifecycleTests {
    /// A weak reference handed out of the controller's scope.
    final class Weak: @unchecked Sendable {
        weak var value: AnyObject?
        init(_ value: AnyObject?) { self.value = value }
    }

    @Test func aStoppedControllerLeavesNothingAlive() async throws {
        let refs = try await withController(routines: true) { f -> [(String, Weak)] in
            _ = try await f.client().send(.text("turn on the kitchen light"))
            return [("controller", Weak(f.controller)), ("MQTT client", Weak(f.controller.client)),
                    ("engine", Weak(f.controller.engine))]
        }
        for (name, ref) in refs {
            #expect(ref.value == nil, "the \(name) outlived its controller")
        }
    }
}
