#!/bin/bash
# Builds the tests, then runs `swift test` with the whole output on the terminal and in
# .build/swift-test.log. When a test fails, the failures are printed again at the very end, where
# the tail of a CI log shows them; when the run hangs past SWIFT_TEST_TIMEOUT seconds (default
# 900, the build not included: a loaded machine builds slowly, and the limit is for hangs), it is
# stopped and the tests that started and never finished are named.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
mkdir -p .build
log=.build/swift-test.log
limit=${SWIFT_TEST_TIMEOUT:-900}
# At most this many tests at once (Swift Testing runs every test at once otherwise, near 3,000
# descriptors): tests that still start programs with Foundation's Process (housectlTests,
# HouseDaemonTests, BrokerProcessTests) can crash the run above about 1,350 (see SpawnedProcess).
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-16}
"${SWIFT:-swift}" build --build-tests 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo "swift build --build-tests failed (exit $status); full output in $log"
    exit "$status"
fi
# HouseHomeKitTests run on their own, after the others: their SRP-6a (3072-bit, BigInt unoptimised
# in a debug build) takes seconds of CPU a pairing, which slowed the timed failover tests beside
# them past their bounds on 2 cores. Arguments (a --filter) run as given, once.
if [ "$#" -eq 0 ]; then
    set -- --skip HouseHomeKitTests
    after=(--filter HouseHomeKitTests)
fi
timeout -k 20 "$limit" "${SWIFT:-swift}" test --skip-build "$@" 2>&1 | tee -a "$log"
status=${PIPESTATUS[0]}
if [ "$status" -eq 0 ] && [ -n "${after[*]:-}" ]; then
    # At most 4 at once: each pairing's SRP is seconds of CPU on the 2 threads of the concurrency
    # pool, and with 16 at once a bridge's start waited past its 10 s bound behind them.
    SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=4 timeout -k 20 "$limit" "${SWIFT:-swift}" test --skip-build "${after[@]}" 2>&1 | tee -a "$log"
    status=${PIPESTATUS[0]}
fi
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo
    echo "swift test did not finish within $limit s; started and not finished (full output in $log):"
    awk '/^◇ Test (case |run started)/ { next }
         /^◇ Test .* started\.$/ { t = $0; sub(/^◇ Test /, "", t); sub(/ started\.$/, "", t); open[t] = 1 }
         /^(✔|✘) Test / { t = $0; sub(/^(✔|✘) Test /, "", t); sub(/ (with [0-9]+ test cases )?(passed|failed|recorded).*/, "", t); delete open[t] }
         END { for (t in open) print "  " t }' "$log" | head -n 12
elif [ "$status" -ne 0 ]; then
    echo
    echo "swift test failed (exit $status); full output in $log. The failures again:"
    grep -aE "recorded an issue|^✘ Test [^r]|error: |Fatal error|unexpected signal|Crash" "$log" \
        | grep -av "^✘ Test run" | cut -c1-240 | awk '!seen[$0]++' > "$log.failures"
    head -n 12 "$log.failures"
    echo "($(wc -l < "$log.failures") such lines; the first 12 above)"
fi
# The phrase corpus figures (Tests/HouseCoreTests/PhraseCorpusTests.swift), where a CI log's tail shows them.
grep -a "^phrase corpus" "$log" | tail -n 3
exit "$status"
