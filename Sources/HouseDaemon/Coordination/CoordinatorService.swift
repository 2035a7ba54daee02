import HouseCore
import HouseMQTT
import Logging
import ServiceLifecycle
import Signals
import Synchronization

/// Runs this node's part of choosing the house's coordinator (`CoordinatorElection`) over MQTT:
/// hears the claims on `<base>/coordinator`, the nodes' status, the routine run claims and the
/// coordinator's mode timeline; publishes this node's claims and renewals on the clock; tells
/// `Coordination` (and through it the topic API, the gateway and the routines) when this node
/// starts or stops coordinating. At graceful shutdown a coordinator releases its claim, so the
/// next node takes over at once.
///
/// When this node starts coordinating, it first puts `coordinationStarted` on the bus (the modes
/// of the last coordinator adopted, the house-level state published), then tells `Coordination`.
struct CoordinatorService<C: WallClock>: Service {
    let coordination: Coordination
    let client: MQTTClient
    let layout: TopicLayout
    let bus: CommandBus
    let clock: C
    let logger: Logger
    /// What this node has heard that a takeover needs (run claims, the mode timeline).
    let heard: CoordinationRecord
    /// Bounds the release at shutdown.
    let deadline: ShutdownDeadline

    private var me: NodeID { coordination.node }

    /// The election and the probe awaited, shared by the MQTT thread and the timer.
    private final class Shared: Sendable {
        let election: Mutex<CoordinatorElection>
        /// The probe sent after the last connect, until its echo comes.
        let probe = Mutex<String?>(nil)
        let wake = WakeSignal()
        init(_ election: CoordinatorElection) { self.election = Mutex(election) }
    }

    func run() async throws {
        let shared = Shared(CoordinatorElection(settings: .init(
            node: coordination.node, candidates: coordination.candidates, lease: coordination.lease)))
        let wake = shared.wake
        let coordination = self.coordination
        let heard = self.heard
        let bus = self.bus
        let layout = self.layout
        let logger = self.logger
        // Leases are spans: measured on a clock that NTP's corrections do not move.
        let clock = self.clock.monotonic
        let wall = self.clock

        /// Carries out what the election said.
        @Sendable func apply(_ actions: [CoordinatorElection.Action]) {
            for action in actions {
                switch action {
                case .publish(let claim):
                    logger.debug("coordination: claiming \(claim)")
                    send(layout.coordinator, claim.json, retain: true)
                case .becameCoordinator(let term, let lastHeard):
                    logger.notice("coordination: this node coordinates the house (term \(term))")
                    // The house-level state first (on the bus, before any held command).
                    bus.note(.coordinationStarted(term: term, modes: heard.modes))
                    let until = shared.election.withLock { $0.confirmedUntil }
                    // When the previous coordinator was last heard, on the wall clock (for the routines).
                    let heardOnWall = lastHeard.map { wall.now.advanced(by: clock.now.duration(to: $0)) }
                    // All at once: whoever wakes on the change reads the new term with it.
                    coordination.update { s in
                        s.coordinator = coordination.node
                        s.term = term
                        s.actingUntil = until
                        s.previousLastHeard = heardOnWall
                    }
                case .steppedDown(let term, let reason):
                    logger.warning("coordination: this node no longer coordinates (term \(term)): \(reason)")
                    coordination.update { s in s.actingUntil = nil }
                }
            }
            publishStatus()
        }

        /// Copies the election's view (who coordinates, the lease) to `Coordination`.
        @Sendable func publishStatus() {
            let (coordinator, term, until) = shared.election.withLock { e in
                (e.coordinator, e.term, e.isActing(at: clock.now) ? e.confirmedUntil : nil)
            }
            coordination.update { s in
                s.coordinator = coordinator
                s.term = term
                if s.actingUntil != nil { s.actingUntil = until }
            }
        }

        var subscriptions: [MQTTSubscription] = []
        subscriptions.append(try await client.subscribe(to: layout.coordinator, qos: .atLeastOnce) { message in
            let claim: CoordinatorClaim
            do throws(MalformedInput) {
                claim = try CoordinatorClaim.parse(message.payload)
            } catch {
                if !message.payload.isEmpty { logger.warning("coordination: ignored a claim on \(message.topic): \(error.reason)") }
                return
            }
            let actions = shared.election.withLock { $0.received(claim, retained: message.retain, at: clock.now) }
            apply(actions)
            wake.signal()
        })
        subscriptions.append(try await client.subscribe(to: layout.nodeStatusFilter, qos: .atLeastOnce) { message in
            guard let status = layout.parseNodeStatus(message), let online = status.online else { return }
            shared.election.withLock { $0.nodeStatus(status.node, online: online) }
            wake.signal()
        })
        subscriptions.append(try await client.subscribe(to: layout.routineRunFilter, qos: .atLeastOnce) { message in
            guard let claim = try? RoutineRunClaim.parse(message.payload) else { return }
            heard.heardRun(claim, retained: message.retain)
        })
        subscriptions.append(try await client.subscribe(to: layout.modeTimeline, qos: .atLeastOnce) { message in
            heard.heardModes(message.payload, from: message.topic, logger: logger)
        })
        // Subscribed last: its echo comes after every retained message of the topics above.
        subscriptions.append(try await client.subscribe(to: layout.nodeProbe(node: me), qos: .atLeastOnce) { message in
            let expected = shared.probe.withLock { p -> Bool in
                guard let sent = p, message.string == sent else { return false }
                p = nil
                return true
            }
            guard expected else { return }
            shared.election.withLock { $0.settled(at: clock.now) }
            wake.signal()
        })

        let states = client.connectionStates()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await state in states {
                    switch state {
                    case .connected:
                        shared.election.withLock { $0.connected(at: clock.now) }
                        let nonce = "probe-\(UInt64.random(in: 0 ... .max))"
                        shared.probe.withLock { $0 = nonce }
                        send(layout.nodeProbe(node: me), nonce, retain: false)
                    case .disconnected, .closed:
                        apply(shared.election.withLock { $0.disconnected(at: clock.now) })
                    case .idle, .connecting:
                        break
                    }
                    wake.signal()
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    let actions = shared.election.withLock { $0.tick(at: clock.now) }
                    apply(actions)
                    let next = shared.election.withLock { $0.nextDeadline }
                    await wake.wait(until: next, on: clock)
                }
            }
            for subscription in subscriptions {
                group.addTask { await subscription.awaitEnd(logger: logger, what: "coordination") }
            }
            try? await gracefulShutdown()
            // Released before the connection goes: the next node takes over at once.
            if let release = shared.election.withLock({ $0.release(at: clock.now) }) {
                logger.notice("coordination: releasing the house (term \(release.term))")
                coordination.update { s in
                    s.actingUntil = nil
                    s.coordinator = nil
                }
                let client = self.client
                _ = await withTimeLimit(deadline.remaining(atMost: .seconds(1))) {
                    try? await client.publish(to: layout.coordinator, payload: release.json, qos: .atLeastOnce, retain: true)
                }
            }
            group.cancelAll()
        }
        await client.unsubscribe(subscriptions, within: deadline.remaining(atMost: .seconds(1)))
    }

    private func send(_ topic: String, _ payload: String, retain: Bool) {
        do {
            _ = try client.send(MQTTMessage(topic: topic, string: payload, qos: .atLeastOnce, retain: retain))
        } catch {
            logger.warning("coordination: publish \(topic) failed: \(error)")
        }
    }
}
