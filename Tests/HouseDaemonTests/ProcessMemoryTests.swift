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
