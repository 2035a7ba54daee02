import Foundation
@testable import HouseCore
import Testing

/// `HouseZone` reads the tz database's files itself; Foundation's (ICU's) `TimeZone` is the
/// reference it must agree with.
struct HouseZoneTests {
    static let zones = ["Europe/London", "Europe/Berlin", "Europe/Dublin", "America/New_York", "America/St_Johns",
                        "America/Sao_Paulo", "America/Santiago", "Australia/Sydney", "Australia/Lord_Howe",
                        "Pacific/Chatham", "Asia/Kolkata", "Asia/Tehran", "Africa/Casablanca", "Antarctica/Troll"]

    @Test(arguments: zones)
    func offsetsAgreeWithFoundationFrom1990To2060(identifier: String) throws {
        let ours = try #require(HouseZone(identifier: identifier))
        let reference = try #require(TimeZone(identifier: identifier))
        var t = 631_152_000.0  // 1990-01-01
        var mismatches: [String] = []
        while t < 2_840_140_800 {  // 2060-01-01
            let date = Date(timeIntervalSince1970: t)
            if ours.secondsFromGMT(for: date) != reference.secondsFromGMT(for: date) {
                mismatches.append("\(date): \(ours.secondsFromGMT(for: date)) vs \(reference.secondsFromGMT(for: date))")
            }
            t += 7 * 3600 + 13 * 60  // every 7 h 13 min: each hour of the day in turn
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test(arguments: ["Europe/London", "America/New_York", "Australia/Sydney", "America/St_Johns"])
    func transitionsAgreeWithFoundation(identifier: String) throws {
        let ours = try #require(HouseZone(identifier: identifier))
        let reference = try #require(TimeZone(identifier: identifier))
        var date = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01
        for _ in 0..<120 {  // 60 years, two changes a year
            let next = try #require(ours.nextTransition(after: date))
            #expect(next == reference.nextDaylightSavingTimeTransition(after: date), "after \(date)")
            #expect(ours.secondsFromGMT(for: next) != ours.secondsFromGMT(for: next.addingTimeInterval(-1)))
            date = next
        }
    }

    @Test func summerTimeAndNames() throws {
        let london = try #require(HouseZone(identifier: "Europe/London"))
        let summer = Date(timeIntervalSince1970: 1_782_000_000)  // 2026-06-21, and far beyond the table:
        let summer2090 = Date(timeIntervalSince1970: 3_801_600_000)  // 2090-06-21
        #expect(london.isDaylightSavingTime(for: summer) && london.isDaylightSavingTime(for: summer2090))
        #expect(london.localName(for: summer2090) == "BST" && london.secondsFromGMT(for: summer2090) == 3600)
        #expect(try #require(HouseZone(identifier: "Asia/Kolkata")).localName(for: summer) == "IST")
        #expect(try #require(HouseZone(identifier: "Asia/Dubai")).localName(for: summer) == "+04")
        #expect(try #require(HouseZone(identifier: "Asia/Kolkata")).nextTransition(after: summer) == nil)
    }

    @Test func utcAndUnknownZones() {
        #expect(HouseZone(identifier: "UTC") == .utc)
        #expect(HouseZone.utc.secondsFromGMT(for: Date()) == 0 && HouseZone.utc.localName(for: Date()) == "UTC")
        #expect(HouseZone(identifier: "Europe/Atlantis") == nil)
        #expect(HouseZone(identifier: "../../etc/passwd") == nil)
        #expect(HouseZone(identifier: "/etc/localtime") == nil)
        #expect(HouseZone(identifier: "") == nil)
    }

    /// Every cut of a real zone file is refused or read, never a crash.
    @Test func truncatedFilesAreRefused() throws {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/Europe/Berlin")))
        #expect(HouseZone(identifier: "x", tzif: bytes) != nil)
        var read = 0
        for n in 0..<bytes.count where HouseZone(identifier: "x", tzif: Array(bytes.prefix(n))) != nil { read += 1 }
        // Only a cut in the last line (the rule) still reads, as a table without a rule.
        #expect(read < 40)
        #expect(HouseZone(identifier: "x", tzif: Array("TZif2 not a zone".utf8)) == nil)
    }

    @Test func posixRules() throws {
        let london = try #require(PosixZoneRule("GMT0BST,M3.5.0/1,M10.5.0"))
        #expect(london.standard.name == "GMT" && london.daylight?.name == "BST" && london.daylight?.offset == 3600)
        // 2026: summer time from 29 March 01:00 UTC to 25 October 01:00 UTC.
        #expect(london.nextTransition(after: 1_767_225_600) == 1_774_746_000)
        #expect(london.nextTransition(after: 1_774_746_000) == 1_792_890_000)
        let plus3 = try #require(PosixZoneRule("<+03>-3"))
        #expect(plus3.standard.offset == 10_800 && plus3.standard.name == "+03" && plus3.daylight == nil)
        let newYork = try #require(PosixZoneRule("EST5EDT"))  // no rule: the US one
        #expect(newYork.localTimeType(at: 1_782_000_000).name == "EDT")
        let stJohns = try #require(PosixZoneRule("NST3:30NDT,M3.2.0,M11.1.0"))
        #expect(stJohns.standard.offset == -12_600 && stJohns.daylight?.offset == -9_000)
        // Version 3: all year summer time, and Julian days.
        let always = try #require(PosixZoneRule("EST5EDT,0/0,J365/25"))
        #expect(always.localTimeType(at: 1_767_225_600 + 86_400 * 200).isDaylight)
        #expect(PosixZoneRule("J1") == nil)
        #expect(PosixZoneRule("GMT0BST,M13.5.0,M10.5.0") == nil)
        #expect(PosixZoneRule("GMT0BST,M3.5.0") == nil)
        #expect(PosixZoneRule("") == nil)
    }

    @Test func iso8601TextIsWhatFoundationWrites() throws {
        for identifier in ["Europe/London", "America/New_York", "Asia/Kolkata", "UTC"] {
            let calendar = HouseCalendar(timeZone: try #require(HouseZone(identifier: identifier)), latitude: 0, longitude: 0)
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(identifier: identifier)
            for t in [1_782_000_000.0, 1_795_521_600.5, 0, -86_399] {
                let date = Date(timeIntervalSince1970: t)
                #expect(calendar.iso8601Text(date) == formatter.string(from: date))
            }
        }
    }
}
