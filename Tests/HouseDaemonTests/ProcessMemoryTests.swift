import Foundation
import HouseCore
import HouseDaemon
import Testing

@Suite("The process's heap policy")
struct ProcessMemoryTests {
    @Test("an arena limit from the environment is left as it is")
    func theEnvironmentWins() {
        #expect(ProcessMemory.useOneMallocArena(environment: ["MALLOC_ARENA_MAX": "4"]) == false)
        #expect(ProcessMemory.useOneMallocArena(environment: ["GLIBC_TUNABLES": "glibc.malloc.arena_max=2"]) == false)
    }

    @Test("without one, glibc takes the limit of one arena")
    func oneArena() {
        #if canImport(Glibc)
        #expect(ProcessMemory.useOneMallocArena(environment: [:]))
        #expect(ProcessMemory.useOneMallocArena(environment: ["GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"]))
        #else
        #expect(ProcessMemory.useOneMallocArena(environment: [:]) == false)
        #endif
    }
}

@Suite("Foundation's default zone")
struct FoundationDefaultZoneTests {
    @Test("GMT for Foundation, and the house's times still in the house's zone")
    func gmtDefault() throws {
        let london = try #require(HouseZone(identifier: "Europe/London"))
        let calendar = HouseCalendar(timeZone: london, latitude: 51.5, longitude: -0.1)
        // 2026-07-01 00:30 UTC: 01:30 British Summer Time.
        let summer = Date(timeIntervalSince1970: 1_782_865_800)
        let before = calendar.iso8601Text(summer)
        ProcessMemory.useGMTAsFoundationDefaultZone()
        // What Hummingbird's `Date` header asks for: a new calendar's zone is the default one.
        #expect(Calendar(identifier: .gregorian).timeZone.identifier == "GMT")
        #expect(NSTimeZone.default.secondsFromGMT(for: summer) == 0)
        #expect(calendar.iso8601Text(summer) == before)
        #expect(before == "2026-07-01T01:30:00+01:00")
    }
}
