#if canImport(Glibc)
import Glibc
#endif
import HouseCore

/// What a node says about itself on `<base>/node/<node>/info` (retained, after every connect):
/// its version, when it started and the address it is reached at. Home Assistant shows them as
/// the node's diagnostic entities.
struct NodeInfo: Sendable, Equatable, Encodable {
    var version = HousectlVersion.current
    /// ISO 8601, UTC: Home Assistant shows it as how long ago (the uptime).
    var started: String
    /// The machine's first IPv4 address that is up and not loopback; nil when it has none.
    var address: String?

    init(started: WallInstant, address: String? = NodeInfo.hostAddress()) {
        self.started = started.iso8601UTC
        self.address = address
    }

    /// The payload: compact JSON with sorted keys.
    var json: String { sortedJSON() }

    /// The first IPv4 address of an interface that is up and not loopback (`getifaddrs`).
    static func hostAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>? = nil
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var next: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = next {
            defer { next = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                  flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0 else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let found = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var a = inet.pointee.sin_addr
                return inet_ntop(AF_INET, &a, &text, socklen_t(text.count)) != nil
            }
            if found { return String(cString: text) }
        }
        return nil
    }
}
