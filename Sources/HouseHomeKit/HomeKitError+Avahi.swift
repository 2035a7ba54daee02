import CAvahi

extension HomeKitError {
    /// An avahi call that failed with `code`, in avahi's words.
    static func avahi(_ call: String, _ code: Int32) -> HomeKitError {
        .mdns("\(call): \(String(cString: avahi_strerror(code)))")
    }
}
