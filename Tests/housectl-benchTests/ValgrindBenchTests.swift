import Foundation
import Testing
@testable import housectl_bench

/// Row 9's parts that need no valgrind: reading bench/cpu/callgrind.sh's summary, and
/// bench/cpu/allocs.py counting allocations in a callgrind profile.
@Suite struct ValgrindBenchTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func readsTheSummaryLine() {
        let output = """
            sending command instrumentation on to pid 4020
            callgrind.out.4-09 MosquittoNetworkThread: 118724 instructions a command, 62.5 allocations a command
            all threads: 394738 instructions a command, 187.1 allocations a command (daemon, 400 commands at 40/s; profiles in .build/callgrind)
            """
        #expect(ValgrindBench.parse(output) == .init(instructions: 394_738, allocations: 187.1))
        #expect(ValgrindBench.parse("all threads: 394738 instructions a command (400 commands at 40/s)") == nil)
        #expect(ValgrindBench.parse("no summary") == nil)
    }

    @Test func aFailureInShort() {
        let output = """
            ==18707== Command: /tmp/x/housectl-bench echo --port 34953
            --18707-- VALGRIND INTERNAL ERROR: Valgrind received a signal 11 (SIGSEGV) - exiting
            In the bug report, send all the above text.

            bench/cpu/callgrind.sh: process 18707 stopped before " ready: " in /tmp/x/daemon.log
            """
        #expect(ValgrindBench.reason(output) == "--18707-- VALGRIND INTERNAL ERROR: Valgrind received a signal 11 (SIGSEGV) - exiting ... "
                + "bench/cpu/callgrind.sh: process 18707 stopped before \" ready: \" in /tmp/x/daemon.log")
        #expect(ValgrindBench.reason("bench/cpu/callgrind.sh: valgrind is missing\n") == "bench/cpu/callgrind.sh: valgrind is missing")
    }

    @Test func wholeNumbersWithTheirSpread() {
        #expect(ValgrindBench.whole(Spread([391_399, 390_629.4, 393_129])) == "391399 (390629-393129)")
        #expect(ValgrindBench.whole(Spread([24_204])) == "24204")
        #expect(ValgrindBench.whole(Spread([])) == "n/a")
    }

    /// Compressed names, calls from outside the allocators counted, the allocators' own calls
    /// (realloc to malloc, posix_memalign's _mid_memalign to malloc) not.
    @Test func allocsCountsCallsToTheAllocators() throws {
        let profile = """
            # callgrind format
            version: 1
            events: Ir
            fn=(1) swift_slowAlloc
            0 10
            cob=(2) libc.so.6
            cfi=(3) malloc.c
            cfn=(4) malloc
            calls=7 0
            0 700
            fn=(5) realloc
            0 5
            cfn=(4)
            calls=2 0
            0 200
            fn=(6) _mid_memalign.constprop.0
            0 5
            cfn=(4)
            calls=3 0
            0 300
            fn=(7) caller
            0 1
            cfn=(5)
            calls=4 0
            0 40
            cfn=(8) posix_memalign
            calls=3 0
            0 30
            cfn=(9) calloc
            calls=1 0
            0 10
            cfn=(10) free
            calls=9 0
            0 90
            fn=(1)
            0 1
            cfn=(4)
            calls=5 0
            0 500
            totals: 1000
            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("allocs-\(UUID().uuidString).out")
        try profile.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try PhraseRow.shell("/usr/bin/env", ["python3", "bench/cpu/allocs.py", file.path], root: Self.root.path)
        #expect(r.status == 0)
        // malloc 7 + 5 from swift_slowAlloc, realloc 4, posix_memalign 3, calloc 1.
        #expect(r.output.trimmingCharacters(in: .whitespacesAndNewlines) == "\(file.path) 20")
    }

    @Test func echoDefaultsAreTheDaemonsTopics() throws {
        let echo = try EchoCommand.parse(["--port", "1883"])
        #expect(echo.set == ControllerBench.setTopic && echo.state == ControllerBench.stateTopic)
        #expect(echo.mqttVersion == 5)
        #expect(throws: (any Error).self) { try EchoCommand.parse(["--port", "1883", "--mqtt-version", "4"]) }
    }
}
