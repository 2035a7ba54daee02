import Foundation
import HouseDaemon
import HouseMQTT
import Signals
import Synchronization

/// Row 8: the page of the real `housectl serve`. Page load (the HTML, then the first state from
/// /api/state, each on a new connection as a browser's first visit) against the same state asked
/// over MQTT as `housectl status` asks it (a new connection, a request, its reply); the live
/// update, from a `set` published to the page's `state` event showing the new state, against the
/// retained state topic's message for the same command. (The daemon's memory with the page on is
/// row 5's.)
enum WebBench {
    static func run(rounds: Int, loads: Int, updates: Int, housectl: String, root: String) async -> [BenchRow] {
        var load50: [Double] = [], load99: [Double] = [], peer50: [Double] = [], peer99: [Double] = []
        var live50: [Double] = [], live99: [Double] = [], state50: [Double] = [], state99: [Double] = []
        do {
            for round in 0..<rounds {
                let house = try await ServedHouse.start(housectl: housectl, root: root, web: true)
                defer { house.stop() }
                guard let port = house.webPort else { throw ChildBroker.StartFailed(description: "the page has no port") }
                let load = try pageLoads(port: port, count: loads)
                let peer = try await mqttStatus(house, count: loads)
                let live = try await liveUpdates(house, port: port, count: updates)
                load50.append(load.percentile(50)); load99.append(load.percentile(99))
                peer50.append(peer.percentile(50)); peer99.append(peer.percentile(99))
                live50.append(live.page.percentile(50)); live99.append(live.page.percentile(99))
                state50.append(live.state.percentile(50)); state99.append(live.state.percentile(99))
                progress("web round \(round + 1)/\(rounds): page load p50 \(format(load.percentile(50))) ms, live p50 \(format(live.page.percentile(50))) ms")
            }
        } catch {
            progress("web failed: \(error)")
            return [.unavailable("8. the page", goal: "<= 200 ms", why: "\(error)")]
        }
        func row(_ name: String, _ ours: [Double], _ peer: [Double], peerName: String, goal: String = "-", met: String = "-", note: String? = nil) -> BenchRow {
            let o = Spread(ours), p = Spread(peer)
            return BenchRow(name: name, ours: o.text(2), peer: "\(p.text(2)) (\(peerName))", ratio: String(format: "%.2fx", o.median / p.median),
                            goal: goal, met: met, note: note)
        }
        let live = Spread(live99).median
        return [
            row("8. page load, HTML + state, p50 (ms)", load50, peer50, peerName: "status over MQTT",
                note: "8. `housectl serve --web-port` (example house, --gpio sim): page load = GET / then GET /api/state, each on a new connection (\(loads) per round); its peer asks the same state over MQTT as `housectl status` does (a new connection, intent/request, the reply). Live update: a `set` published to the `state` event of an open /api/events stream showing it (\(updates) per round, each \(Int(liveSpacing / .milliseconds(1))) ms after the page showed the last: the stream sends changes closer together than 20 ms as one event at the end of that interval); its peer is the retained state topic's message for the same command."),
            row("8. page load, HTML + state, p99 (ms)", load99, peer99, peerName: "status over MQTT"),
            row("8. live update to the page, p50 (ms)", live50, state50, peerName: "MQTT state", goal: "<= 200 ms",
                met: Spread(live50).median <= 200 ? "yes" : "NO"),
            row("8. live update to the page, p99 (ms)", live99, state99, peerName: "MQTT state", goal: "<= 200 ms", met: live <= 200 ? "yes" : "NO"),
        ]
    }

    /// `count` page loads: the HTML, then the state, each on a new connection (ms).
    static func pageLoads(port: Int, count: Int) throws -> Samples {
        let clock = ContinuousClock()
        var samples = Samples()
        for _ in 0..<count {
            let t0 = clock.now
            let page = try HTTPProbe.get(port: port, path: "/")
            let state = try HTTPProbe.get(port: port, path: "/api/state")
            guard page.status == 200, state.status == 200, state.body.count > 100 else {
                throw ChildBroker.StartFailed(description: "the page answered \(page.status) and \(state.status)")
            }
            samples.values.append((clock.now - t0).inMilliseconds)
        }
        return samples
    }

    /// `count` status requests over MQTT, each on a new connection (ms).
    static func mqttStatus(_ house: ServedHouse, count: Int) async throws -> Samples {
        let client = DaemonClient(host: "127.0.0.1", port: house.mqttPort, timeout: .seconds(10))
        let clock = ContinuousClock()
        var samples = Samples()
        for _ in 0..<count {
            let t0 = clock.now
            let reply = try await client.send(.intent(.query(QueryHouseStatusIntent(queryType: .deviceStates))))
            guard reply.status == .done else { throw ChildBroker.StartFailed(description: "status over MQTT: \(reply.dialog)") }
            samples.values.append((clock.now - t0).inMilliseconds)
        }
        return samples
    }

    /// How long after the page showed one switch the next is published: longer than the live
    /// stream's burst interval (`LiveStates.burstInterval`, 20 ms), so that each switch is a
    /// change after a quiet spell, as a person's taps are, and goes out at once. Switches closer
    /// together go out together at the end of the interval (the flood is made of those).
    static let liveSpacing: Duration = .milliseconds(25)

    /// The kitchen light switched `count` times over MQTT, `liveSpacing` apart: how long until an
    /// open page's event stream shows each new state, and until the retained state topic says it (ms).
    static func liveUpdates(_ house: ServedHouse, port: Int, count: Int) async throws -> (page: Samples, state: Samples) {
        let events = try EventStream(port: port)
        defer { events.close() }
        let pub = try await MQTTLoad.client(port: house.mqttPort, name: "web-pub")
        let sub = try await MQTTLoad.client(port: house.mqttPort, name: "web-sub")
        let states = try await sub.subscribe(to: ControllerBench.stateTopic, qos: .atMostOnce)
        var iterator = states.makeAsyncIterator()
        // The retained state first, and the stream's first event.
        _ = try await iterator.next()
        guard await events.wait(forState: nil, after: 0, timeout: .seconds(10)) != nil else {
            throw ChildBroker.StartFailed(description: "no first state event")
        }
        let clock = ContinuousClock()
        var page = Samples(), state = Samples()
        var current = events.lastKitchenState ?? "OFF"
        for _ in 0..<count {
            let target = current == "ON" ? "OFF" : "ON"
            let seen = events.count
            let t0 = clock.now
            _ = try await pub.publish(MQTTMessage(topic: ControllerBench.setTopic, payload: Array(target.utf8), qos: .atMostOnce))
            while let m = try await iterator.next(), String(decoding: m.payload, as: UTF8.self) != target {}
            state.values.append((clock.now - t0).inMilliseconds)
            guard let at = await events.wait(forState: target, after: seen, timeout: .seconds(10)) else {
                throw ChildBroker.StartFailed(description: "the page never showed the kitchen light \(target)")
            }
            page.values.append((at - t0).inMilliseconds)
            current = target
            try await clock.sleep(until: at.advanced(by: liveSpacing))
        }
        await pub.disconnect()
        await sub.disconnect()
        return (page, state)
    }
}

/// A plain HTTP/1.1 client on a blocking socket: enough to time the page without a client
/// framework's own costs.
enum HTTPProbe {
    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ChildBroker.StartFailed(description: "socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let e = errno
            close(fd)
            throw ChildBroker.StartFailed(description: "connect to 127.0.0.1:\(port): errno \(e)")
        }
        return fd
    }

    static func send(_ fd: Int32, _ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ChildBroker.StartFailed(description: "send: errno \(errno)") }
            sent += n
        }
    }

    /// GET `path` on a new connection (closed by the server): the status and the body.
    static func get(port: Int, path: String) throws -> (status: Int, body: [UInt8]) {
        let fd = try connect(port: port)
        defer { close(fd) }
        try send(fd, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            response += buffer[0..<n]
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, response.count - 3)).first(where: { Array(response[$0..<$0 + 4]) == separator }) else {
            throw ChildBroker.StartFailed(description: "no HTTP response from 127.0.0.1:\(port)\(path)")
        }
        let head = String(decoding: response[0..<end], as: UTF8.self)
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, Array(response[(end + 4)...]))
    }
}

/// An open /api/events stream read on a thread of its own: the kitchen light's state in each
/// `state` event, with when it came.
final class EventStream: Sendable {
    private let fd: Int32
    private let events = Mutex<[(state: String, at: ContinuousClock.Instant)]>([])
    private let arrived = WakeSignal()

    init(port: Int) throws {
        fd = try HTTPProbe.connect(port: port)
        try HTTPProbe.send(fd, "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n")
        let thread = Thread { [self] in self.read() }
        thread.start()
    }

    private func read() {
        let clock = ContinuousClock()
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let marker = #""id":"kitchen-light","#
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }
            let now = clock.now
            text += String(decoding: buffer[0..<n], as: UTF8.self)
            while let end = text.range(of: "\n\n") {
                let event = text[..<end.lowerBound]
                text = String(text[end.upperBound...])
                guard event.contains("event: state"), let device = event.range(of: marker),
                      let state = event[device.upperBound...].range(of: #""state":""#) else { continue }
                let value = String(event[state.upperBound...].prefix { $0 != "\"" })
                events.withLock { $0.append((value, now)) }
                arrived.signal()
            }
        }
    }

    var count: Int { events.withLock { $0.count } }
    var lastKitchenState: String? { events.withLock { $0.last?.state } }

    /// When the first event after the first `after` ones showed `state` (any state when nil).
    func wait(forState state: String?, after: Int, timeout: Duration) async -> ContinuousClock.Instant? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            let found = events.withLock { list in list.dropFirst(after).first { state == nil || $0.state == state }?.at }
            if let found { return found }
            await arrived.wait(until: deadline, on: clock)
        }
        return nil
    }

    func close() {
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }
}
