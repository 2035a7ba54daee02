#!/bin/sh
# The tests that draw or schedule days, again on a weekend and in other time zones: CI runs on any
# day, and a test that holds only on weekdays (or at some hours, or in one zone) fails on the rest.
#  - the page in a real browser with the controller's clock on a Saturday and on a Sunday morning,
#    in the weekday-only morning routine's hours (`serve --start-time`);
#  - HouseCore's tests (relevance, schedules, day plans, sun, time windows, clocks) with the
#    machine's own date on a Saturday and a Sunday (Debian's faketime) and its zone far from UTC.
# make test runs it after the browser test.
set -eu
cd "$(dirname "$0")/../.."
if ! command -v faketime > /dev/null; then
    echo "weekend test: faketime missing (make test installs it: scripts/ensure-deps.sh)"
    exit 1
fi
bin=.build/release/housectl
[ -x "$bin" ] || bin=$(swift build --product housectl --show-bin-path)/housectl
tests=$(swift build --show-bin-path)/housectlPackageTests.xctest
[ -x "$tests" ] || { echo "weekend test: no test bundle at $tests (make test builds it)"; exit 2; }
failed=0
# run DAY ZONE: both checks with the house's clock (the page) and the machine's (the tests) at DAY.
run() {
    echo "weekend test: the page with the house's clock at $1"
    /usr/bin/python3 Tests/Browser/test_page.py --housectl "$bin" --start-time "$1" || failed=1
    echo "weekend test: HouseCore's tests with the machine at $1 in $2"
    # The wrapper (not LD_PRELOAD alone): it sets libfaketime's shared state before the bundle
    # starts, so that the library's own setenv does not move `environ` from under Swift's runtime
    # (which then sees no arguments). HouseCore runs no timer of the system's for libfaketime to
    # disturb: its time comes from injected clocks.
    log=$(mktemp)
    if TZ=$2 FAKETIME_DONT_FAKE_MONOTONIC=1 timeout -k 10 300 faketime "$1:00" \
        "$tests" --testing-library swift-testing --filter HouseCoreTests > "$log" 2>&1; then
        grep -a "Test run with" "$log" | tail -n 1
    else
        echo "weekend test: HouseCore's tests failed (exit $?); their output's failures, then its end:"
        grep -aE "recorded an issue|^✘ Test|Test run with" "$log" | cut -c1-240 | head -n 20
        tail -n 20 "$log" | cut -c1-240
        failed=1
    fi
    rm -f "$log"
}
# A Saturday and a Sunday at 07:30, in the morning routine's hours; the machine's zone west of the
# house's, then east of it.
run "2026-11-28 07:30" America/Los_Angeles
run "2026-11-29 07:30" Pacific/Kiritimati
[ "$failed" -eq 0 ] && echo "weekend test: passed" || echo "weekend test: FAILED"
exit "$failed"
