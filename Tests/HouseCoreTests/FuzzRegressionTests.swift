import Foundation
import HouseCore
import Testing

/// Inputs found by fuzzing (fuzz/) that crashed once: each must now be a clear refusal.
struct FuzzRegressionTests {
    @Test(arguments: [
        "99999999999999999999h", "99999999999999999999", "1e300s", "1e19", "9223372036854775807s",
        "-5", "-1h", "nan", "inf", "1e308d", "100000000000000000000000ms", "5000000000000000h1",
    ])
    func durationsThatDoNotFitAreRefused(_ text: String) {
        #expect(DurationParser.parse(text) == nil)
    }

    @Test func ordinaryDurationsStillParse() {
        #expect(DurationParser.parse("1h30m") == .seconds(5400))
        #expect(DurationParser.parse("500ms") == .milliseconds(500))
        #expect(DurationParser.parse("90") == .seconds(90))
        #expect(DurationParser.parse("36500d") == .seconds(36500 * 86400))
    }

    @Test(arguments: ["sunset+99999999999999999999h", "sunrise-99999999999999999999", "dusk+1e300s", "dawn-inf"])
    func timeEdgesWithHugeOffsetsAreRefused(_ text: String) {
        #expect(TimeEdge(text) == nil)
    }
}
