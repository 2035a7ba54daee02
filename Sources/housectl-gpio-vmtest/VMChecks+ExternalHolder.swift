import Foundation
import HouseCore
import HouseGPIO

extension VMChecks {
    /// libgpiod's own `gpioset` (run.sh puts it in the initramfs).
    static let gpiosetPath = "/usr/bin/gpioset"

    /// Another *process* (`gpioset`) holds channel 1's line: the bank's error names it, and once it
    /// exits the bank gets the line.
    func busyLineHeldByGpioset() async throws {
        let layout = try layout()
        let up = layout.channel(device: "shutter-up")!.line
        guard FileManager.default.isExecutableFile(atPath: Self.gpiosetPath) else {
            runner.expect(false, "\(Self.gpiosetPath) is missing from the VM")
            return
        }
        let gpioset = try GuestProcess(path: Self.gpiosetPath, arguments: ["--mode=signal", chipName, "\(up)=1"])
        defer { gpioset.stop(with: SIGKILL) }

        // Wait (bounded) until the kernel shows gpioset holding the line.
        let probe = try LibgpiodChip(opening: chipName)
        let deadline = ContinuousClock.now + .seconds(20)
        var holder: String? = nil
        while ContinuousClock.now < deadline && gpioset.isRunning {
            holder = try probe.info(line: up).consumer
            if holder != nil { break }
            usleep(10_000)
        }
        runner.expect(holder == "gpioset", "gpioset did not come to hold line \(up) (holder \(holder ?? "nil"), running \(gpioset.isRunning))")
        guard holder == "gpioset" else { return }
        expectLevels([up: true], "while gpioset holds it high")

        do {
            let clock = makeClock()
            var bank = try RelayBank(layout: layout, chip: try LibgpiodChip(opening: chipName), at: clock.now)
            runner.expect(false, "the bank requested line \(up), which gpioset holds")
            var events: [RelayEvent] = []
            bank.shutdown(at: clock.now, events: &events)
        } catch {
            let want = GPIOError.lineBusy(call: "gpiod_line_request_output_flags", chip: chipName, line: up, holder: "gpioset")
            runner.expect(error == want, "error is \(error), expected \(want)")
            runner.expect(error.description.contains("held by \"gpioset\""), "message does not name the holder: \(error)")
        }

        let ending = gpioset.stop(with: SIGTERM)
        var exited = false
        if case .exited? = ending { exited = true }
        runner.expect(exited, "gpioset did not exit on SIGTERM within 5 s (\(ending.map { "\($0)" } ?? "killed"))")
        let clock = makeClock()
        var bank = try RelayBank(layout: layout, chip: try LibgpiodChip(opening: chipName), at: clock.now)
        expectLevels([up: offLevel], "when the bank got the line after gpioset exited")
        var events: [RelayEvent] = []
        bank.shutdown(at: clock.now, events: &events)
    }
}
