#!/bin/bash
# Runs `swift test` with the whole output on the terminal and in .build/swift-test.log. When a
# test fails, the failures are printed again at the very end, where the tail of a CI log shows them.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build
log=.build/swift-test.log
${SWIFT:-swift} test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo
    echo "swift test failed (exit $status); full output in $log. The failures again:"
    grep -aE "recorded an issue|^✘ Test [^r]|error: |Fatal error|unexpected signal|Crash" "$log" \
        | grep -av "^✘ Test run" | cut -c1-240 | awk '!seen[$0]++' > "$log.failures"
    head -n 12 "$log.failures"
    echo "($(wc -l < "$log.failures") such lines; the first 12 above)"
fi
exit "$status"
