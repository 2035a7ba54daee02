import Foundation
import HouseDaemon

// The entry point, synchronous on purpose. An `async` main hands the main thread to
// dispatch_main(), which ends it with pthread_exit: that forced unwind looks up every frame of
// the main thread in the binary's unwind tables, and the pages it reads were about 1 MB of the
// daemon's resident memory (docs/BENCHMARKS.md, "What start-up and a burst still held"). Here the main thread waits.

// The heap policy is set before anything starts a thread.
ProcessMemory.useOneMallocArena(environment: ProcessInfo.processInfo.environment)
Housectl.runWhileMainThreadWaits()
