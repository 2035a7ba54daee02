internal import CGPIOD
import Foundation
import HouseCore

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
    /// The event file descriptor of an input line (requested for both edges); -1 for an output.
    let eventFD: Int32
    private(set) var isReleased = false

    init(chip: GPIODChipHandle, line: OpaquePointer, activeLow: Bool, eventFD: Int32 = -1) {
        self.chip = chip
        self.line = line
        self.activeLow = activeLow
        self.eventFD = eventFD
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
        if gpiod_line_request_output_flags(line, consumer, flags, initialValue ? 1 : 0) != 0 {
            throw requestFailed(errno, call: "gpiod_line_request_output_flags", line: line, offset: offset)
        }
        lock.withLock { requests[offset] = GPIODLineRequest(chip: handle, line: line, activeLow: activeLow) }
    }

    /// The error of a refused line request (`code` is the errno read right after the call): a
    /// busy line names its holder.
    private func requestFailed(_ code: Int32, call: String, line: OpaquePointer, offset: Int) -> GPIOError {
        switch code {
        case EBUSY:
            var holder: String? = nil
            if gpiod_line_update(line) == 0, let c = gpiod_line_consumer(line) { holder = String(cString: c) }
            return .lineBusy(call: call, chip: name, line: offset, holder: holder)
        case EACCES, EPERM:
            return .permissionDenied(call: call, chip: name, line: offset)
        default:
            return .callFailed(call: call, chip: name, line: offset, errno: code, message: String(cString: strerror(code)))
        }
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

    // MARK: Inputs

    public func requestInput(line offset: Int, consumer: String, activeLow: Bool, bias: InputBias) throws(GPIOError) {
        let line = try line(offset, call: "gpiod_chip_get_line")
        var flags: Int32 = activeLow ? Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) : 0
        switch bias {
        case .pullUp: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP)
        case .pullDown: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN)
        case .disabled: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE)
        }
        if gpiod_line_request_both_edges_events_flags(line, consumer, flags) != 0 {
            throw requestFailed(errno, call: "gpiod_line_request_both_edges_events_flags", line: line, offset: offset)
        }
        let fd = gpiod_line_event_get_fd(line)
        lock.withLock { requests[offset] = GPIODLineRequest(chip: handle, line: line, activeLow: activeLow, eventFD: fd) }
    }

    public func inputValue(line offset: Int) throws(GPIOError) -> Bool {
        guard let request = lock.withLock({ requests[offset] }), request.eventFD >= 0 else { throw .lineNotHeld(chip: name, line: offset) }
        let v = gpiod_line_get_value(request.line)
        if v < 0 {
            let code = errno
            throw .callFailed(call: "gpiod_line_get_value", chip: name, line: offset, errno: code, message: String(cString: strerror(code)))
        }
        return v == 1
    }

    /// Polls the event descriptors of the input lines, then reads what each has (libgpiod 1.6
    /// reports the edges in logical terms for an active-low request, with CLOCK_MONOTONIC times).
    public func waitForEdges(timeout: Duration) throws(GPIOError) -> [GPIOEdgeEvent] {
        let inputs = lock.withLock { requests.filter { $0.value.eventFD >= 0 }.map { (line: $0.key, fd: $0.value.eventFD) } }
        let ms = Int32(clamping: max(0, timeout.wholeMilliseconds))
        guard !inputs.isEmpty else {
            _ = poll(nil, 0, ms)
            return []
        }
        var fds = inputs.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&fds, nfds_t(fds.count), ms)
        if ready < 0 {
            let code = errno
            if code == EINTR { return [] }
            throw .callFailed(call: "poll", chip: name, line: nil, errno: code, message: String(cString: strerror(code)))
        }
        var out: [GPIOEdgeEvent] = []
        var buffer = [gpiod_line_event](repeating: gpiod_line_event(), count: 16)
        for (i, input) in inputs.enumerated() where fds[i].revents & Int16(POLLIN) != 0 {
            let n = gpiod_line_event_read_fd_multiple(input.fd, &buffer, UInt32(buffer.count))
            if n < 0 {
                let code = errno
                throw .callFailed(call: "gpiod_line_event_read_fd_multiple", chip: name, line: input.line, errno: code,
                                  message: String(cString: strerror(code)))
            }
            for e in buffer.prefix(Int(n)) {
                out.append(GPIOEdgeEvent(line: input.line, active: e.event_type == Int32(GPIOD_LINE_EVENT_RISING_EDGE),
                                         at: .seconds(e.ts.tv_sec) + .nanoseconds(e.ts.tv_nsec)))
            }
        }
        return out.sorted { $0.at < $1.at }
    }

    public var edgeClockNow: Duration {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return .seconds(ts.tv_sec) + .nanoseconds(ts.tv_nsec)
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
