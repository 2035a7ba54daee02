import CQRencode
import Foundation

/// A QR code's modules, made by libqrencode: `size` × `size`, true where a module is dark. For
/// the setup URI the bridge's QR code carries, in the terminal and on the page.
public struct QRCode: Sendable, Equatable {
    /// How much of the code may be lost and still read (the QR code's error correction level).
    public enum Correction: Sendable {
        case low, medium, quartile, high

        var level: QRecLevel {
            switch self {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            case .quartile: QR_ECLEVEL_Q
            case .high: QR_ECLEVEL_H
            }
        }
    }

    public let size: Int
    /// Row after row.
    public let modules: [Bool]

    /// Encodes `text` in the smallest version that holds it (libqrencode picks the modes: a setup
    /// URI is all alphanumeric).
    public init(encoding text: String, correction: Correction = .medium) throws(HomeKitError) {
        guard let code = QRcode_encodeString(text, 0, correction.level, QR_MODE_8, 1) else {
            throw .qrCode("QRcode_encodeString: \(String(cString: strerror(errno)))")
        }
        defer { QRcode_free(code) }
        let size = Int(code.pointee.width)
        // The low bit of each byte: 1 is dark (the other bits are libqrencode's bookkeeping).
        let data = UnsafeBufferPointer(start: code.pointee.data, count: size * size)
        self.size = size
        modules = data.map { $0 & 1 == 1 }
    }

    /// Whether the module at `row`, `column` is dark; outside the code (its quiet zone) none is.
    public subscript(row: Int, column: Int) -> Bool {
        guard (0..<size).contains(row), (0..<size).contains(column) else { return false }
        return modules[row * size + column]
    }
}
