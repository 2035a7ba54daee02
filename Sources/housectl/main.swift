import Foundation
import HouseDaemon

// The heap policy is set before anything starts a thread.
ProcessMemory.useOneMallocArena(environment: ProcessInfo.processInfo.environment)
await Housectl.start()
