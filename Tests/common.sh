# shellcheck shell=sh
# Sourced by the Tests/*/run.sh scripts (POSIX sh).

# unavailable TEST WHY: a peer the test needs is missing: a failure in CI (CI=true), where a
# missing peer must not pass for a skip; a skip elsewhere.
unavailable() {
    echo "$1: $2"
    [ "${CI:-}" = "true" ] && exit 1
    echo "$1: SKIPPED (not in CI)"
    exit 0
}

# find_housectl TEST: sets $bin to the release housectl that make test builds (the debug one
# otherwise); exits 2 when there is none.
find_housectl() {
    bin=.build/release/housectl
    [ -x "$bin" ] || bin=$(swift build --product housectl --show-bin-path)/housectl
    [ -x "$bin" ] || { echo "$1: no housectl binary (make test builds it)"; exit 2; }
}
