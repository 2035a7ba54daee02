import CAvahi
import Foundation
import Logging

/// Announces the bridge by DNS-SD as `_hap._tcp` through avahi-daemon, with the TXT records of
/// its `HAPAdvertisement`, so that the Home app finds it; `update` announces changed records (a
/// pairing added or removed) at once. Follows avahi's rules for a publisher: the service is added
/// only while the daemon's host name is established (`RUNNING`) and withdrawn while it is not; a
/// name taken on the network gives way to avahi's alternative ("Home Bridge #2"); a daemon that
/// goes away is waited for, and the service announced again when it is back. Without
/// avahi-daemon the bridge still works by address, and one warning says that mDNS is off and why.
///
/// Its state is touched only on avahi's loop thread (the callbacks, which hold the loop's lock)
/// or under that lock.
final class HAPAnnouncer: @unchecked Sendable {
    static let serviceType = "_hap._tcp"
    /// At most this many alternative names are tried in a row.
    static let maxRenames = 50

    private let poll: AvahiPollThread
    private let port: UInt16
    private let logger: Logger
    private var advertisement: HAPAdvertisement
    /// The service's instance name: the advertisement's, or avahi's alternative after a collision.
    private var name: String
    private var client: AvahiClientHandle?
    private var group: AvahiEntryGroupHandle?
    private var warned = false
    private var stopped = false

    private init(_ advertisement: HAPAdvertisement, port: Int, logger: Logger) throws(HomeKitError) {
        poll = try AvahiPollThread()
        self.port = UInt16(clamping: port)
        self.logger = logger
        self.advertisement = advertisement
        name = advertisement.name
    }

    /// Starts announcing the bridge listening on `port`; nil, with the one warning logged, when
    /// avahi cannot be used at all (no D-Bus system bus). A daemon that is not running yet is
    /// waited for.
    static func start(_ advertisement: HAPAdvertisement, port: Int, logger: Logger) -> HAPAnnouncer? {
        do {
            let announcer = try HAPAnnouncer(advertisement, port: port, logger: logger)
            try announcer.connect()
            try announcer.poll.start()
            return announcer
        } catch {
            logger.warning("homekit: mDNS is off: \(Self.reason(error)); the Home app cannot find the bridge (it listens on port \(port)); restart housectl serve once avahi-daemon runs")
            return nil
        }
    }

    /// Why avahi cannot be used, in a person's words (nil: avahi-daemon answers), for `housectl homekit`.
    static func unavailability() -> String? {
        do {
            let poll = try AvahiPollThread()
            _ = try AvahiClientHandle(poll: poll, waitForDaemon: false) { _, _ in }
            return nil
        } catch {
            return reason(error)
        }
    }

    /// Why avahi cannot be used, from the error of its client: no system bus, or no daemon on it.
    static func reason(_ error: HomeKitError) -> String {
        var text = "\(error)"
        if case .mdns(let reason) = error { text = reason }
        let bus = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"] != nil
            || FileManager.default.fileExists(atPath: "/run/dbus/system_bus_socket")
        if !bus { return "there is no D-Bus system bus, which avahi-daemon needs (\(text))" }
        if text.hasSuffix(String(cString: avahi_strerror(Int32(AVAHI_ERR_NO_DAEMON)))) { return "avahi-daemon is not running (\(text))" }
        return text
    }

    /// Announces `new` instead of what was announced (nothing is sent when nothing changed).
    func update(_ new: HAPAdvertisement) {
        poll.withLock {
            guard new != advertisement else { return }
            advertisement = new
            // Not announced now: it will be, with these records.
            guard let group, !group.isEmpty else { return }
            do {
                try group.updateTXT(name: name, type: Self.serviceType, txt: new.txtRecords)
            } catch {
                logger.error("homekit: mDNS: the new records are not announced: \(error)")
            }
        }
    }

    /// Withdraws the service and closes the connection to avahi-daemon.
    func stop() {
        poll.withLock { stopped = true }
        poll.stop()
        // The loop's thread has ended: nothing else touches them now. The group goes first.
        group = nil
        client = nil
    }

    deinit {
        stop()
    }

    // MARK: avahi's callbacks (on the loop's thread, its lock held)

    /// The first state arrives from inside avahi_client_new, on this thread: the lock is taken as
    /// a callback would hold it.
    private func connect() throws(HomeKitError) {
        try poll.withLock { () throws(HomeKitError) in
            client = try AvahiClientHandle(poll: poll, waitForDaemon: true) { [unowned self] client, state in
                clientChanged(client, state)
            }
        }
    }

    private func clientChanged(_ client: OpaquePointer, _ state: AvahiClientState) {
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            warned = false
            publish(client)
        case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
            // The daemon's host name is being (re)established: withdrawn until it is.
            group?.reset()
        case AVAHI_CLIENT_CONNECTING:
            guard !warned else { return }
            warned = true
            logger.warning("homekit: mDNS is off: avahi-daemon is not running; the Home app cannot find the bridge (it listens on port \(port)) until it does: the bridge is announced as soon as avahi-daemon starts")
        case AVAHI_CLIENT_FAILURE:
            let code = avahi_client_errno(client)
            guard code == Int32(AVAHI_ERR_DISCONNECTED) else {
                logger.error("homekit: mDNS is off: \(HomeKitError.avahi("avahi client", code)); the Home app cannot find the bridge")
                return
            }
            logger.warning("homekit: mDNS: avahi-daemon went away; the bridge is announced again when it is back")
            reconnectLater()
        default:
            break
        }
    }

    private func groupChanged(_ group: OpaquePointer, _ state: AvahiEntryGroupState) {
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            logger.info("homekit: announced by mDNS as '\(name)' (\(Self.serviceType), port \(port))")
        case AVAHI_ENTRY_GROUP_COLLISION:
            // Withdrawn by avahi: the same group, emptied, again under the next name.
            avahi_entry_group_reset(group)
            rename(takenBy: "another responder on the network")
            publish(avahi_entry_group_get_client(group))
        case AVAHI_ENTRY_GROUP_FAILURE:
            let code = avahi_client_errno(avahi_entry_group_get_client(group))
            logger.error("homekit: mDNS: the announcement failed: \(HomeKitError.avahi("entry group", code))")
        default:
            break
        }
    }

    /// Adds the service to the (new or emptied) group and commits it.
    private func publish(_ client: OpaquePointer?) {
        guard let client, !stopped else { return }
        do {
            if group == nil {
                group = try AvahiEntryGroupHandle(client: client) { [unowned self] group, state in groupChanged(group, state) }
            }
            guard let group, group.isEmpty else { return }
            var renames = 0
            while try !group.addService(name: name, type: Self.serviceType, port: port, txt: advertisement.txtRecords) {
                renames += 1
                guard renames <= Self.maxRenames else { throw HomeKitError.mdns("no free name after \(Self.maxRenames) alternatives of '\(advertisement.name)'") }
                rename(takenBy: "another service of this machine")
            }
            try group.commit()
        } catch {
            logger.error("homekit: mDNS: the bridge is not announced: \(error)")
        }
    }

    /// The next name avahi proposes ("Home Bridge" -> "Home Bridge #2" -> "Home Bridge #3").
    private func rename(takenBy holder: String) {
        guard let alternative = avahi_alternative_service_name(name) else { return }
        defer { avahi_free(alternative) }
        let next = String(cString: alternative)
        logger.notice("homekit: mDNS: the name '\(name)' is taken by \(holder); the bridge is announced as '\(next)'")
        name = next
    }

    /// A client whose daemon went away is freed and a new one waits for the daemon, off this
    /// callback (which runs inside the old client).
    private func reconnectLater() {
        Task {
            poll.withLock {
                guard !stopped else { return }
                group = nil
                client = nil
                do throws(HomeKitError) {
                    client = try AvahiClientHandle(poll: poll, waitForDaemon: true) { [unowned self] client, state in
                        clientChanged(client, state)
                    }
                } catch {
                    logger.error("homekit: mDNS is off: \(Self.reason(error)); the Home app cannot find the bridge")
                }
            }
        }
    }
}
