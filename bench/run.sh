#!/usr/bin/env bash
# `make bench`: release build, the peers' Python venv (hassil, amqtt), then housectl-bench, which
# prints one table (every row: ours, the peer's figure in the same run, ratio, goal, met?). Row 9
# needs valgrind, mosquitto and mosquitto-clients (bench/cpu/callgrind.sh).
#
#   bench/run.sh                 # everything
#   BENCH_ROUNDS=3 BENCH_ONLY=1,4 bench/run.sh
#
# Env: BENCH_ROUNDS (default 5), BENCH_ONLY (rows, e.g. "1,2,5,9"), PYTHON (default python3),
#      BENCH_SAMPLES, BENCH_COMMANDS (rows 1 and 2 per round: default 2000 and 10000),
#      BENCH_BASELINE_INSTRUCTIONS (row 9's goal: instructions per command, all threads; default
#      392735), BENCH_VALGRIND_ROUNDS (default: the rounds, at most 3), BENCH_VALGRIND_COMMANDS and
#      BENCH_VALGRIND_RATE (row 9's load: default 400 at 40/s, the load of the baseline),
#      HOUSECTL (the daemon to measure; default: the one just built),
#      BENCH_OUT (also write the table here; default .build/bench-last-run.md),
#      BENCH_THREADS=1 (row 2: each round also prints the CPU per command of every thread of the
#      bench process, the controller's and the echo client's, on stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
START=$(date +%s)

# Row 9's tools, installed when missing (make bench's deps cover the rest).
missing=""
for p in valgrind binutils; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [[ -n "$missing" ]]; then
    echo "== installing$missing" >&2
    SUDO=""
    [[ "$(id -u)" -ne 0 ]] && SUDO="sudo"
    # shellcheck disable=SC2086  # the package list is split on purpose
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null \
        || echo "bench: could not install$missing; row 9 will say n/a" >&2
fi

echo "== release build (housectl, housectl-bench)" >&2
scripts/release-build.sh --product housectl-bench >&2
scripts/release-build.sh --product housectl >&2
BIN="$(scripts/release-build.sh --show-bin-path)"
echo "== build took $(( $(date +%s) - START )) s" >&2

# The peers: amqtt (a Python MQTT broker) here, hassil (phrase matching, pinned) in
# .cache/grammar-venv by bench/phrases/run.sh. A failure here is not fatal: their rows then say
# "n/a" and why.
VENV="$ROOT/bench/.venv"
if [[ ! -x "$VENV/bin/python" ]]; then
    "${PYTHON:-python3}" -m venv "$VENV" >&2 || echo "bench: cannot create $VENV (python3 -m venv failed)" >&2
fi
if [[ -x "$VENV/bin/python" ]]; then
    if ! "$VENV/bin/python" -c "import amqtt" 2>/dev/null; then
        echo "== pip install amqtt" >&2
        timeout 180 "$VENV/bin/pip" install --quiet amqtt >&2 || echo "bench: pip install amqtt failed; its row will say n/a" >&2
    fi
fi

OUT=${BENCH_OUT:-$ROOT/.build/bench-last-run.md}
HOUSECTL="${HOUSECTL:-$BIN/housectl}" "$BIN/housectl-bench" | tee "$OUT"
echo "== make bench took $(( $(date +%s) - START )) s (table also in $OUT)" >&2
