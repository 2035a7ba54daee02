import Foundation

/// Runs named checks one after the other and prints one line per check to the serial console,
/// in the form `run.sh` reads: `VMTEST PASS name` / `VMTEST FAIL name: why`.
final class VMTestRunner {
    private(set) var passed = 0
    private(set) var failed = 0
    private var problems: [String] = []

    /// Records a failed expectation of the running check; the check continues.
    func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { problems.append(message()) }
    }

    /// Runs one check; it fails when it throws or any `expect` in it failed.
    func check(_ name: String, _ body: () async throws -> Void) async {
        problems = []
        do {
            try await body()
        } catch {
            problems.append("threw: \(error)")
        }
        if problems.isEmpty {
            passed += 1
            print("VMTEST PASS \(name)")
        } else {
            failed += 1
            print("VMTEST FAIL \(name): " + problems.joined(separator: "; "))
        }
        fflush(nil) // the console keeps what was printed even if the next check crashes
    }
}
