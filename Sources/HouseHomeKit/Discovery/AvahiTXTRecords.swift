import CAvahi

/// A service's TXT records as avahi takes them (an `AvahiStringList` of `key=value`), in the
/// order given; freed when the last reference goes (avahi copies what it keeps).
final class AvahiTXTRecords {
    let pointer: UnsafeMutablePointer<AvahiStringList>?

    init(_ records: [(key: String, value: String)]) {
        var list: UnsafeMutablePointer<AvahiStringList>? = nil
        // avahi puts each new pair first: added last to first, they read first to last.
        for record in records.reversed() { list = avahi_string_list_add_pair(list, record.key, record.value) }
        pointer = list
    }

    deinit {
        avahi_string_list_free(pointer)
    }
}
