import Foundation

/// The eight-digit code a person types into the Home app (`XXX-XX-XXX`), the SRP password of
/// pair-setup. Never logged; `description` hides it.
public struct SetupCode: Sendable, Equatable, CustomStringConvertible {
    /// The code with its dashes, as SRP takes it.
    public let text: String

    /// Reads `XXX-XX-XXX` (or the eight digits alone); refuses the codes HAP forbids.
    public init(_ text: String) throws(HomeKitError) {
        let digits = text.filter { $0 != "-" }
        guard digits.count == 8, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { throw .invalidSetupCode }
        let formatted = "\(digits.prefix(3))-\(digits.dropFirst(3).prefix(2))-\(digits.suffix(3))"
        guard text == digits || text == formatted else { throw .invalidSetupCode }
        guard !Self.forbidden.contains(digits), Set(digits).count > 1 else { throw .invalidSetupCode }
        self.text = formatted
    }

    /// A random code that HAP allows.
    public static func random() -> SetupCode {
        var g = SystemRandomNumberGenerator()
        while true {
            let digits = (0..<8).map { _ in String(Int.random(in: 0...9, using: &g)) }.joined()
            if let code = try? SetupCode(digits) { return code }
        }
    }

    public var description: String { "XXX-XX-XXX" }

    static let forbidden: Set<String> = ["12345678", "87654321"]
}

extension SetupCode {
    private struct Stored: Codable {
        var setupCode: String
    }

    /// The bridge's setup code: the one in `pinFile` when given, else the one kept in
    /// `setup.json` under `directory` (0600), made at random the first time.
    public static func load(pinFile: String?, keptIn directory: String) throws(HomeKitError) -> SetupCode {
        if let code = try read(pinFile: pinFile, keptIn: directory) { return code }
        let code = random()
        try StateFile.write(Stored(setupCode: code.text), to: path(in: directory))
        return code
    }

    /// The setup code in `pinFile`, or kept under `directory`; nil when none was made yet.
    public static func read(pinFile: String?, keptIn directory: String) throws(HomeKitError) -> SetupCode? {
        if let pinFile {
            guard let text = try? String(contentsOfFile: pinFile, encoding: .utf8) else {
                throw .stateFile(path: pinFile, reason: "cannot be read")
            }
            return try SetupCode(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return try StateFile.read(Stored.self, at: path(in: directory)).map { (stored: Stored) throws(HomeKitError) in try SetupCode(stored.setupCode) }
    }

    /// Where a code the bridge made is kept.
    public static func path(in directory: String) -> String { directory + "/setup.json" }
}
