import Foundation
internal import CMosquitto

/// Owns one libmosquitto property list (`mosquitto_property *`) and frees it, unless a call that
/// takes ownership took it (`release()`). The raw list never leaves HouseMQTT: it is built from
/// typed values and read back into them (`MosquittoPropertyList+Conversion.swift`).
final class MosquittoPropertyList {
    /// The list's head; nil when empty.
    private(set) var head: OpaquePointer?

    init() {}

    deinit {
        if head != nil { mosquitto_property_free_all(&head) }
    }

    var isEmpty: Bool { head == nil }

    /// Runs `body` with the list's head while the list is surely alive (after a bare `head` read
    /// the optimizer may free the list before the C call that uses it).
    func withHead<Result>(_ body: (OpaquePointer?) throws -> Result) rethrows -> Result {
        try withExtendedLifetime(self) { try body(head) }
    }

    /// Hands the list to a call that takes ownership of it on success (`mosquitto_will_set_v5`):
    /// call only once that call succeeded.
    func release() { head = nil }

    // MARK: Adding (each throws `invalidProperty` with libmosquitto's reason when it refuses)

    func add(byte value: UInt8, _ id: Int32, _ what: Context) throws(MQTTError) {
        try check(mosquitto_property_add_byte(&head, id, value), what)
    }

    func add(int32 value: UInt32, _ id: Int32, _ what: Context) throws(MQTTError) {
        try check(mosquitto_property_add_int32(&head, id, value), what)
    }

    func add(varint value: UInt32, _ id: Int32, _ what: Context) throws(MQTTError) {
        try check(mosquitto_property_add_varint(&head, id, value), what)
    }

    func add(binary value: [UInt8], _ id: Int32, _ what: Context) throws(MQTTError) {
        guard let length = UInt16(exactly: value.count) else {
            throw what.error("it is \(value.count) bytes, over 65,535")
        }
        let rc = value.withUnsafeBytes { mosquitto_property_add_binary(&head, id, $0.baseAddress, length) }
        try check(rc, what)
    }

    func add(string value: String, _ id: Int32, _ what: Context) throws(MQTTError) {
        try check(mosquitto_property_add_string(&head, id, value), what)
    }

    func add(name: String, value: String, _ id: Int32, _ what: Context) throws(MQTTError) {
        try check(mosquitto_property_add_string_pair(&head, id, name, value), what)
    }

    private func check(_ rc: Int32, _ what: Context) throws(MQTTError) {
        guard rc != MosquittoHandle.success else { return }
        throw what.error("libmosquitto refuses it: \(MosquittoHandle.describe(rc))")
    }

    /// What a property is for, to name it in an error.
    struct Context {
        /// The topic or filter the property goes with.
        let subject: String
        /// The property's name ("content type").
        let property: String

        func error(_ reason: String) -> MQTTError { .invalidProperty(topic: subject, property: property, reason: reason) }
    }
}
