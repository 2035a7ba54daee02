import Testing
import HouseCore

@Suite struct RecentLogTests {
    @Test func keepsTheNewestUpToItsLimit() {
        var log = RecentLog<Int>(limit: 1_000)
        for i in 0..<2_500 { log.append(i) }
        #expect(log.elements == Array(1_500..<2_500), "the newest 1,000, oldest first")
        #expect(log.last == 2_499)
        log.append(2_500)
        #expect(log.elements.count == 1_000)
        #expect(log.elements.first == 1_501)
    }

    @Test func keepsEverythingWithoutALimit() {
        var log = RecentLog<Int>(limit: nil)
        for i in 0..<5_000 { log.append(i) }
        #expect(log.elements == Array(0..<5_000))
    }
}
