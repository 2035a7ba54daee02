// housectl-gpio-vmtest: runs inside the VM of `make test-vm` (Tests/VM/run.sh) against a gpio-sim chip.
//
// Usage: housectl-gpio-vmtest CHIP SIM_SYSFS_DIR BOARD_YAML
//   CHIP           the gpio-sim chip (e.g. gpiochip0)
//   SIM_SYSFS_DIR  its sysfs directory with sim_gpioN/value (e.g. /sys/devices/platform/gpio-sim.0/gpiochip0)
//   BOARD_YAML     the board profile whose channel lines the chip's line names match
// Prints `VMTEST PASS|FAIL name` per check and `VMTEST DONE passed=N failed=M`; exits 1 when a check failed.
import Foundation
import HouseCore
import HouseGPIO

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    print("usage: housectl-gpio-vmtest CHIP SIM_SYSFS_DIR BOARD_YAML")
    exit(2)
}
let boardPath = arguments[3]
let board: BoardProfile
do {
    let yaml = try String(contentsOfFile: boardPath, encoding: .utf8)
    let id = ((boardPath as NSString).lastPathComponent as NSString).deletingPathExtension
    board = try ConfigurationLoader.parseBoard(yaml: yaml, id: id, file: boardPath)
} catch {
    print("VMTEST FAIL board profile \(boardPath): \(error)")
    print("VMTEST DONE passed=0 failed=1")
    exit(1)
}
guard board.channels.count >= 3 else {
    print("VMTEST FAIL board profile \(boardPath): the checks need 3 channels, it has \(board.channels.count)")
    print("VMTEST DONE passed=0 failed=1")
    exit(1)
}

let runner = VMTestRunner()
let checks = VMChecks(chipName: arguments[1], board: board, sim: GPIOSimLines(directory: arguments[2]), runner: runner)
await checks.runAll()
print("VMTEST DONE passed=\(runner.passed) failed=\(runner.failed)")
exit(runner.failed == 0 ? 0 : 1)
