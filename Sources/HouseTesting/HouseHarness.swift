import Foundation
import HouseCore

/// The example house wired to fakes and a manual clock: what pipeline tests start from.
public struct HouseHarness: Sendable {
    public let configuration: HouseConfiguration
    public let relays: FakeRelayDriver
    public let publisher: FakePublisher
    public let clock: ManualClock
    public let service: HouseService
    public let pipeline: IntentPipeline

    /// 2026-03-04 (a Wednesday) 10:00 UTC, a fixed start for tests.
    public static let defaultStart = Date(timeIntervalSince1970: 1_772_618_400)

    /// - Parameter node: the node this service runs on; nil treats every relay as local.
    public init(configuration: HouseConfiguration? = nil, node: NodeID? = nil, start: Date = HouseHarness.defaultStart) throws {
        let config = try configuration ?? HouseFixtures.exampleConfiguration()
        self.configuration = config
        self.relays = FakeRelayDriver()
        self.publisher = FakePublisher()
        self.clock = ManualClock(start: start)
        self.service = HouseService(configuration: config, node: node, relays: relays, publisher: publisher, clock: clock)
        self.pipeline = IntentPipeline(service: service)
    }
}
