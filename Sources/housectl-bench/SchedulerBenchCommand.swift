import ArgumentParser
import HouseCore

/// `housectl-bench scheduler [--routines N] [--year YEAR]`: the scheduler benchmark once (row 6 of
/// the table runs it `BENCH_ROUNDS` times), figures on stdout. Was `housectl routines --bench`.
struct SchedulerBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scheduler",
        abstract: "Benchmark the scheduler: every run of generated routines over a year."
    )

    @Option(name: .long, help: "Routines in the benchmark.")
    var routines: Int = 1000

    @Option(name: .long, help: "Year of the benchmark.")
    var year: Int = 2026

    func validate() throws {
        guard routines > 0 else { throw ValidationError(ScheduleError.invalidCount(routines).description) }
    }

    func run() {
        print(SchedulerBenchmark.run(routineCount: routines, year: year))
    }
}
