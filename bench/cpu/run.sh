#!/usr/bin/env bash
# The controller's own CPU per command, for A/B comparisons of builds or settings (run in turn on
# a quiet machine; bench/cpu/callgrind.sh counts instructions, which noise does not move): `housectl serve --gpio sim` against Debian's
# mosquitto (its own, on a free port), COUNT commands on house/kitchen/kitchen-light/set, and the
# daemon's and mosquitto's CPU (every thread, /proc/PID/task/*/schedstat) divided by the commands,
# once every command's state has come back. No peer and no goal: compare two runs made in turn.
#
#   bench/cpu/run.sh [HOUSECTL] [COUNT] [REPEATS]      # default .build/release/housectl 6000 3
#   RATE=2000 QOS=1 bench/cpu/run.sh                   # paced, the way row 1's commands come
#
# Env: RATE (commands/s; 0, the default: back to back), QOS (0 or 1, default 0),
#      HOUSECTL_ENV (extra environment for the daemon, e.g. "FOO=1").
set -euo pipefail
cd "$(dirname "$0")/../.."
HOUSECTL=${1:-$(scripts/release-build.sh --show-bin-path)/housectl}
COUNT=${2:-6000}
REPEATS=${3:-3}
for tool in mosquitto mosquitto_sub python3; do
    command -v "$tool" > /dev/null || { echo "bench/cpu/run.sh: $tool is missing (make deps installs it)" >&2; exit 1; }
done
((COUNT > 0 && COUNT % 2 == 0)) || { echo "bench/cpu/run.sh: COUNT must be even (ON, OFF, ...)" >&2; exit 1; }
[[ -x "$HOUSECTL" ]] || { echo "bench/cpu/run.sh: no housectl at $HOUSECTL (make bench builds it)" >&2; exit 1; }

# shellcheck source=bench/cpu/common.sh
source bench/cpu/common.sh
# shellcheck disable=SC2086
start_daemon 30 env ${HOUSECTL_ENV:-} "$HOUSECTL"

cpu() {  # nanoseconds on a CPU, every thread of PID
    local total=0 ns rest
    for stat in /proc/"$1"/task/*/schedstat; do
        read -r ns rest < "$stat" || continue
        total=$((total + ns))
    done
    echo "$total"
}

TOPIC=house/kitchen/kitchen-light
for round in $(seq "$REPEATS"); do
    # Every round starts and ends with the light OFF (an even count of ON, OFF, ...): each
    # command is an edge and a state, after the retained OFF the subscriber gets first.
    : > "$WORK/states"
    mosquitto_sub -p "$PORT" -t "$TOPIC/state" -C $((COUNT + 1)) -W 120 > "$WORK/states" &
    SUB=$!
    PIDS+=("$SUB")
    wait_for "$WORK/states" "O" 10 "$SUB"
    daemon0=$(cpu "$DAEMON"); broker0=$(cpu "$MOSQUITTO"); start=$(date +%s%N)
    python3 bench/cpu/pace.py "$PORT" "$TOPIC/set" "$COUNT" "${RATE:-0}" "${QOS:-0}"
    wait "$SUB" || { echo "bench/cpu/run.sh: not every command's state came back" >&2; exit 1; }
    end=$(date +%s%N); daemon1=$(cpu "$DAEMON"); broker1=$(cpu "$MOSQUITTO")
    echo "round $round: $COUNT commands in $(((end - start) / 1000000)) ms; CPU per command: housectl $(((daemon1 - daemon0) / COUNT / 1000)) us, mosquitto $(((broker1 - broker0) / COUNT / 1000)) us"
done
