import CAvahi

/// A set of DNS-SD records avahi-daemon publishes together (an `AvahiEntryGroup`): here the
/// bridge's `_hap._tcp` service. Its state changes go to `onState` on the loop's thread, the
/// first one from inside `init`. Freed before its client (the owner keeps that order); freeing
/// it withdraws what it announced.
final class AvahiEntryGroupHandle: @unchecked Sendable {
    typealias Context = AvahiCallbackContext<AvahiEntryGroupState>

    let pointer: OpaquePointer
    private let context: Context

    /// A new, empty group of `client` (a pointer, as the client's own first callback may make it).
    init(client: OpaquePointer, onState: @escaping Context.Handler) throws(HomeKitError) {
        let context = Context(onState)
        guard let pointer = avahi_entry_group_new(client, { Context.deliver($0, $1, $2) }, context.userdata) else {
            throw .avahi("avahi_entry_group_new", avahi_client_errno(client))
        }
        self.pointer = pointer
        self.context = context
    }

    /// Whether nothing is in the group (never filled, reset, or withdrawn after a collision).
    var isEmpty: Bool { avahi_entry_group_is_empty(pointer) != 0 }

    /// Adds a service on every interface and protocol avahi-daemon serves; false when its name is
    /// already taken by a service of this machine (avahi's local collision: choose another name).
    func addService(name: String, type: String, port: UInt16, txt: [(key: String, value: String)]) throws(HomeKitError) -> Bool {
        let records = AvahiTXTRecords(txt)
        let result = avahi_entry_group_add_service_strlst(pointer, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC),
                                                          AvahiPublishFlags(rawValue: 0), name, type, nil, nil, port, records.pointer)
        if result == Int32(AVAHI_ERR_COLLISION) { return false }
        guard result >= 0 else { throw .avahi("avahi_entry_group_add_service", result) }
        return true
    }

    /// Replaces the TXT records of a service in the group (announced again at once).
    func updateTXT(name: String, type: String, txt: [(key: String, value: String)]) throws(HomeKitError) {
        let records = AvahiTXTRecords(txt)
        let result = avahi_entry_group_update_service_txt_strlst(pointer, AvahiIfIndex(AVAHI_IF_UNSPEC),
                                                                 AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(rawValue: 0),
                                                                 name, type, nil, records.pointer)
        guard result >= 0 else { throw .avahi("avahi_entry_group_update_service_txt", result) }
    }

    /// Publishes what was added.
    func commit() throws(HomeKitError) {
        let result = avahi_entry_group_commit(pointer)
        guard result >= 0 else { throw .avahi("avahi_entry_group_commit", result) }
    }

    /// Withdraws and removes everything in the group.
    func reset() {
        avahi_entry_group_reset(pointer)
    }

    deinit {
        avahi_entry_group_free(pointer)
    }
}
