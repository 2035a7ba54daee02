import Testing

@testable import HouseHomeKit

/// The setup QR code from libqrencode and its drawing in the terminal: the matrix of a setup URI
/// has the size of its version and the three finder patterns, and the half blocks show it row
/// for row.
@Suite struct QRCodeTests {
    static let uri = "X-HM://0023ISYWY7OSX"

    /// Whether a 7×7 finder pattern (a dark ring, a light ring, a dark 3×3 centre) starts at `row`, `column`.
    static func finder(_ qr: QRCode, _ row: Int, _ column: Int) -> Bool {
        (0..<7).allSatisfy { r in
            (0..<7).allSatisfy { c in
                let ring = max(abs(r - 3), abs(c - 3))
                return qr[row + r, column + c] == (ring != 2)
            }
        }
    }

    @Test func aSetupURIIsAVersion1CodeWithItsFinderPatterns() throws {
        let qr = try QRCode(encoding: Self.uri)
        // 20 alphanumeric characters fit version 1 (21 modules) at error correction M.
        #expect(qr.size == 21 && qr.modules.count == 441)
        #expect(Self.finder(qr, 0, 0) && Self.finder(qr, 0, 14) && Self.finder(qr, 14, 0))
        #expect(!Self.finder(qr, 14, 14), "no finder pattern in the fourth corner")
        // The timing pattern: row 6 alternates between the finders.
        #expect((8...12).map { qr[6, $0] } == [true, false, true, false, true])
        #expect(!qr[-1, 0] && !qr[0, 21], "outside the code is the light quiet zone")
        #expect(try QRCode(encoding: Self.uri, correction: .high).size == 25, "more correction, a larger version")
        #expect(try QRCode(encoding: "X-HM://0023ISYWY7OSY") != qr)
    }

    @Test func theTerminalDrawingIsTheMatrixTwoRowsALine() throws {
        let qr = try QRCode(encoding: Self.uri)
        let lines = qr.terminalLines(quietZone: 2)
        // 21 rows and 2 × 2 of quiet zone: 25 rows of modules, 13 lines (the last with its lower half empty).
        #expect(lines.count == 13)
        #expect(lines.allSatisfy { $0.count == 25 })
        #expect(lines[0] == String(repeating: "█", count: 25), "two rows of quiet zone: all light")
        // Rows 0 and 1: the finder's dark top edge over its light ring, the separator's light column, ...
        #expect(lines[1].hasPrefix("██ ▄▄▄▄▄ █"))
        #expect(lines[1].hasSuffix("█ ▄▄▄▄▄ ██"))
        // Every character is the two modules it covers (light ones drawn).
        for (i, line) in lines.enumerated() {
            for (j, character) in line.enumerated() {
                let upper = !qr[2 * i - 2, j - 2], lower = 2 * i - 1 < 23 && !qr[2 * i - 1, j - 2]
                let expected: Character = upper ? (lower ? "█" : "▀") : (lower ? "▄" : " ")
                #expect(character == expected, "line \(i), column \(j)")
            }
        }
        #expect(qr.terminalLines(ansi: true)[1] == "\u{1B}[97;40m" + lines[1] + "\u{1B}[0m")
    }
}
