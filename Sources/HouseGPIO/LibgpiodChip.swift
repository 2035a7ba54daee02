internal import CGPIOD
import Foundation

// Every libgpiod call of housectl lives in this file, so a libgpiod 2 backend can be added beside it.

/// Owns one `struct gpiod_chip *`; closing it also releases the lines requested through it.
final class GPIODChipHandle {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { gpiod_chip_close(pointer) }
}

/// Owns one requested line (`struct gpiod_line *`, which belongs to its chip); releases it once.
final class GPIODLineRequest {
    let chip: GPIODChipHandle
    let line: OpaquePointer
    let activeLow: Bool
    private(set) var isReleased = false

    init(chip: GPIODChipHandle, line: OpaquePointer, activeLow: Bool) {
        self.chip = chip
        self.line = line
        self.activeLow = activeLow
    }

    func release() {
        guard !isReleased else { return }
        isReleased = true
        gpiod_line_release(line)
    }

    deinit { release() }
}

/// A kernel GPIO chip through libgpiod 1.6 (Debian 12, Raspberry Pi OS bookworm).
///
/// Lines are requested as outputs with consumer `housectl`, the active-low flag and the initial
/// value in the same request, held for the life of this object and released by `release(line:)`
/// or when it is deallocated.
public final class LibgpiodChip: GPIOChip, @unchecked Sendable {
    public let name: String
    public let label: String
    public let lineCount: Int

    private let handle: GPIODChipHandle
    private let lock = NSLock()
    private var requests: [Int: GPIODLineRequest] = [:]

    /// Opens a chip by name (`gpiochip0`), path (`/dev/gpiochip0`), label (`pinctrl-bcm2711`) or number (`0`).
    public init(opening chip: String) throws(GPIOError) {
        let call = "gpiod_chip_open_lookup"
        guard let pointer = gpiod_chip_open_lookup(chip) else {
            let code = errno
            switch code {
            case EACCES, EPERM:
                throw .permissionDenied(call: "\(call)(\"\(chip)\")", chip: chip, line: nil)
            case ENOENT, ENODEV, ENOTTY, EINVAL:
                let available = LibgpiodChip.availableChips()
                if available.isEmpty { throw .noChips(call: call, chip: chip) }
                throw .chipNotFound(call: call, chip: chip, available: available.map(\.description))
            default:
                throw .callFailed(call: "\(call)(\"\(chip)\")", chip: chip, line: nil, errno: code, message: String(cString: strerror(code)))
            }
        }
        let handle = GPIODChipHandle(pointer)
        self.handle = handle
        self.name = String(cString: gpiod_chip_name(pointer))
        self.label = String(cString: gpiod_chip_label(pointer))
        self.lineCount = Int(gpiod_chip_num_lines(pointer))
    }

    /// The chips on this machine, from `/dev/gpiochip*` (empty when there are none).
    public static func availableChips() -> [GPIOChipSummary] {
        var result: [GPIOChipSummary] = []
        let dev = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
        for entry in dev.filter({ $0.hasPrefix("gpiochip") }).sorted(by: { $0.localizedStandardCompare($1) == .orderedAscending }) {
            if let pointer = gpiod_chip_open("/dev/\(entry)") {
                let handle = GPIODChipHandle(pointer)
                result.append(GPIOChipSummary(
                    name: String(cString: gpiod_chip_name(handle.pointer)),
                    label: String(cString: gpiod_chip_label(handle.pointer)),
                    lineCount: Int(gpiod_chip_num_lines(handle.pointer))))
            } else {
                // Exists but cannot be opened (permissions): still worth naming.
                result.append(GPIOChipSummary(name: entry, label: nil, lineCount: nil))
            }
        }
        return result
    }

    private func line(_ offset: Int, call: String) throws(GPIOError) -> OpaquePointer {
        guard offset >= 0, offset < lineCount, let line = gpiod_chip_get_line(handle.pointer, UInt32(offset)) else {
            throw .lineMissing(call: call, chip: name, line: offset, lineCount: lineCount)
        }
        return line
    }

    public func requestOutput(line offset: Int, consumer: String, activeLow: Bool, initialValue: Bool) throws(GPIOError) {
        let line = try line(offset, call: "gpiod_chip_get_line")
        let flags: Int32 = activeLow ? Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) : 0
        let call = "gpiod_line_request_output_flags"
        if gpiod_line_request_output_flags(line, consumer, flags, initialValue ? 1 : 0) != 0 {
            let code = errno
            switch code {
            case EBUSY:
                var holder: String? = nil
                if gpiod_line_update(line) == 0, let c = gpiod_line_consumer(line) { holder = String(cString: c) }
                throw .lineBusy(call: call, chip: name, line: offset, holder: holder)
            case EACCES, EPERM:
                throw .permissionDenied(call: call, chip: name, line: offset)
            default:
                throw .callFailed(call: call, chip: name, line: offset, errno: code, message: String(cString: strerror(code)))
            }
        }
        lock.withLock { requests[offset] = GPIODLineRequest(chip: handle, line: line, activeLow: activeLow) }
    }

    public func setValue(line offset: Int, to value: Bool) throws(GPIOError) {
        guard let request = lock.withLock({ requests[offset] }) else { throw .lineNotHeld(chip: name, line: offset) }
        if gpiod_line_set_value(request.line, value ? 1 : 0) != 0 {
            let code = errno
            throw .callFailed(call: "gpiod_line_set_value", chip: name, line: offset, errno: code, message: String(cString: strerror(code)))
        }
    }

    public func info(line offset: Int) throws(GPIOError) -> GPIOLineInfo {
        let line = try line(offset, call: "gpiod_chip_get_line")
        if gpiod_line_update(line) != 0 {
            let code = errno
            if code == EACCES || code == EPERM { throw .permissionDenied(call: "gpiod_line_update", chip: name, line: offset) }
            throw .callFailed(call: "gpiod_line_update", chip: name, line: offset, errno: code, message: String(cString: strerror(code)))
        }
        let held = lock.withLock { requests[offset] }
        var logical: Bool? = nil
        if let held {
            let v = gpiod_line_get_value(held.line)
            if v >= 0 { logical = v == 1 }
        }
        return GPIOLineInfo(
            line: offset,
            name: gpiod_line_name(line).map { String(cString: $0) },
            consumer: gpiod_line_consumer(line).map { String(cString: $0) },
            isOutput: gpiod_line_direction(line) == Int32(GPIOD_LINE_DIRECTION_OUTPUT),
            activeLow: gpiod_line_active_state(line) == Int32(GPIOD_LINE_ACTIVE_STATE_LOW),
            heldByUs: held != nil,
            logicalValue: logical)
    }

    public func release(line offset: Int) {
        let request = lock.withLock { requests.removeValue(forKey: offset) }
        request?.release()
    }
}

/// A GPIO chip found on this machine.
public struct GPIOChipSummary: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var label: String?
    public var lineCount: Int?

    public var description: String {
        var s = name
        if let label { s += " (\(label)" + (lineCount.map { ", \($0) lines" } ?? "") + ")" }
        return s
    }
}
