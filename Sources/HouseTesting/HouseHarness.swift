import Foundation
import HouseCore
import Synchronization

/// The example house's engine on recording relays and a manual clock: what pipeline tests start from.
public struct HouseHarness: Sendable {
    public let configuration: HouseConfiguration
    /// What the engine asked of the relays.
    public let relays: RelayCallLog
    /// The messages the engine published for devices elsewhere (a remote device's command
    /// topic, another node's peer topic).
    public let publisher: PublishedMessages
    public let clock: ManualClock
    public let engine: HouseEngine

    /// 2026-03-04 (a Wednesday) 10:00 UTC, a fixed start for tests.
    public static let defaultStart = Date(timeIntervalSince1970: 1_772_618_400)

    /// - Parameters:
    ///   - node: the node this engine runs on; nil treats every relay as local.
    ///   - phrases: the phrase templates the engine understands (none: a phrase is refused).
    public init(configuration: HouseConfiguration? = nil, node: NodeID? = nil, start: Date = HouseHarness.defaultStart,
                phrases: PhraseSet? = nil) throws {
        let config = try configuration ?? HouseFixtures.exampleConfiguration()
        self.configuration = config
        let log = RelayCallLog()
        self.relays = log
        self.clock = ManualClock(start: start)
        self.engine = HouseEngine(configuration: config, node: node, relays: RecordingRelays(configuration: config, node: node, log: log),
                                  clock: clock, matcher: try phrases.map { try PhraseMatcher(phraseSet: $0, house: config) })
        self.publisher = PublishedMessages(engine: engine)
    }
}

/// The non-retained messages an engine published so far (taken from its effects as they are read).
public final class PublishedMessages: Sendable {
    /// One published message.
    public struct Message: Sendable, Equatable {
        public var topic: String
        public var payload: String
        public var retain: Bool

        public init(topic: String, payload: String, retain: Bool = false) {
            self.topic = topic
            self.payload = payload
            self.retain = retain
        }
    }

    private let engine: HouseEngine
    private let taken = Mutex<[Message]>([])

    init(engine: HouseEngine) { self.engine = engine }

    /// Every non-retained message published so far, in order.
    public var messages: [Message] {
        get async {
            let new = await engine.takeEffects().messages.filter { !$0.retain }.map { Message(topic: $0.topic, payload: $0.string) }
            return taken.withLock { all in
                all += new
                return all
            }
        }
    }
}
