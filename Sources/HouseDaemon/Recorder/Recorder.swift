import Foundation
import HouseCore
import HouseMQTT
import Logging

/// Carries out a command's effects once the engine has returned: its messages published (QoS 1,
/// without waiting for the broker's acknowledgement: libmosquitto sends them again until it
/// comes), its records queued for the state store's next grouped commit, its lines logged.
///
/// Commits run on one thread of their own (`commit`), in the order they were asked for: a
/// commit, and a WAL checkpoint's sync within it, never blocks a thread of the concurrency pool,
/// so a command's state goes out while the previous command's history is being written. The
/// bus's consumer commits before it answers a command somebody waits for (an answered command is
/// on disk); what nobody waits for is committed by `StateRecorderService` within its interval.
final class Recorder: Sendable {
    let store: StateStore
    let client: MQTTClient
    let logger: Logger
    private let worker = BlockingWorker(name: "housectl-commit")

    init(store: StateStore, client: MQTTClient, logger: Logger) {
        self.store = store
        self.client = client
        self.logger = logger
    }

    /// Publishes, queues and logs what one command did, in that order.
    func apply(_ effects: Effects) {
        for message in effects.messages {
            publish(MQTTMessage(topic: message.topic, payload: message.payload, qos: .atLeastOnce, retain: message.retain))
        }
        for record in effects.records {
            do { try keep(record) } catch { logger.error("\(error)") }
        }
        for line in effects.logs {
            switch line.level {
            case .debug: logger.debug("\(line.text)")
            case .info: logger.info("\(line.text)")
            case .warning: logger.warning("\(line.text)")
            case .error: logger.error("\(line.text)")
            }
        }
    }

    /// Publishes `message` without waiting for the broker; a failure (no connection and a full
    /// offline queue, say) is logged.
    func publish(_ message: MQTTMessage) {
        do {
            try client.send(message)
        } catch {
            logger.warning("publish \(message.topic) failed: \(error)")
        }
    }

    private func keep(_ record: Effects.Record) throws(DaemonError) {
        switch record {
        case .history(let entry): try store.appendHistory(entry)
        case .relayState(let device, let state, let at): try store.saveRelayState(device: device, state: state, at: at)
        case .modes(let snapshot, let at): try store.saveModes(snapshot, at: at)
        case .coverPosition(let cover, let position): try store.saveCoverPosition(cover, position)
        case .runDone(let run, let at): try store.markRunDone(run, at: at)
        case .commandSeen(let id, let at): try store.saveCommandSeen(id, at: at)
        case .energyEdge(let edge): store.bufferEnergyEdge(edge)
        case .lastActive(let at): try store.saveLastActive(at)
        case .checkpoint(let at):
            try store.flushEnergyEdges()
            try store.saveLastActive(at)
        }
    }

    /// Commits everything queued so far, then calls `then` (on the commit thread).
    func commit(then: @escaping @Sendable () -> Void) {
        worker.submit { [store, logger] in
            do { try store.flushPending() } catch { logger.error("\(error)") }
            then()
        }
    }

    /// Commits everything queued so far and returns once it is on disk (and every commit asked
    /// for before it is done).
    func commit() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            commit { done.resume() }
        }
    }

    /// Ends the commit thread once the commits asked for are done.
    func stop() {
        worker.stop()
    }
}
