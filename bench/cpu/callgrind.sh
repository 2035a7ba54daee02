#!/usr/bin/env bash
# The daemon's instructions per command, by thread, for A/B comparisons that the machine's noise
# cannot move (see docs/BENCHMARKS.md, session 41): `housectl serve --gpio sim` under valgrind's
# callgrind against Debian's mosquitto (its own, on a free port), COUNT QoS 1 commands on
# house/kitchen/kitchen-light/set paced at RATE a second, one at a time as row 1's come (each runs
# inline on the MQTT thread), counted after 20 warm-up commands. The same binary gives the same
# counts within about 2%. Timers' work (the recorder's 100 ms, the events' probe) is spread over
# RATE/10 commands a tick: compare two builds at the same RATE, not with row 2's CPU figures.
#
#   bench/cpu/callgrind.sh [HOUSECTL] [COUNT] [RATE]    # default: the release housectl, 400, 40
#
# Prints one line per thread (instructions per command; the MQTT thread is MosquittoNetworkThread,
# the commit thread BlockingWorker, the lane's workers _dispatch_worker_thread) and the total, and
# leaves the profiles in OUT (default .build/callgrind) for callgrind_annotate. valgrind 3.19
# cannot read Swift 6's DWARF 5: the binary is run from a `strip -g` copy.
set -euo pipefail
cd "$(dirname "$0")/../.."
HOUSECTL=${1:-$(scripts/release-build.sh --show-bin-path)/housectl}
COUNT=${2:-400}
RATE=${3:-40}
OUT=${OUT:-.build/callgrind}
for tool in valgrind callgrind_control callgrind_annotate mosquitto mosquitto_sub python3 strip; do
    command -v "$tool" > /dev/null || { echo "bench/cpu/callgrind.sh: $tool is missing (apt-get install valgrind mosquitto mosquitto-clients binutils)" >&2; exit 1; }
done
((COUNT > 0 && COUNT % 2 == 0)) || { echo "bench/cpu/callgrind.sh: COUNT must be even (ON, OFF, ...)" >&2; exit 1; }
[[ -x "$HOUSECTL" ]] || { echo "bench/cpu/callgrind.sh: no housectl at $HOUSECTL (make bench builds it)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/housectl-cpu.XXXXXX")
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill -9 "$pid" 2> /dev/null || true; done
    wait 2> /dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$OUT"
rm -f "$OUT"/callgrind.out*
strip -g -o "$WORK/housectl" "$HOUSECTL"

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\nmax_queued_messages 100000\n' "$PORT" > "$WORK/mosquitto.conf"
mosquitto -c "$WORK/mosquitto.conf" > "$WORK/mosquitto.log" 2>&1 &
PIDS+=("$!")
# The example house without its routines (see bench/cpu/run.sh).
awk '/^routines:/ { skip = 1; next } /^[^ #]/ { skip = 0 } !skip' config/house.yaml > "$WORK/house.yaml"
mkdir "$WORK/state"
valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes --callgrind-out-file="$OUT/callgrind.out" \
    --vgdb-prefix="$WORK/vgdb" "$WORK/housectl" serve --config "$WORK/house.yaml" --devices-dir devices \
    --node pi-main --gpio sim --no-web --state-dir "$WORK/state" --broker "127.0.0.1:$PORT" > "$WORK/daemon.log" 2>&1 &
DAEMON=$!
PIDS+=("$DAEMON")
deadline=$((SECONDS + 120))
until grep -q " ready: " "$WORK/daemon.log"; do
    kill -0 "$DAEMON" 2> /dev/null || { cat "$WORK/daemon.log" >&2; exit 1; }
    ((SECONDS < deadline)) || { echo "bench/cpu/callgrind.sh: the daemon was not ready within 120 s" >&2; exit 1; }
    sleep 0.1
done

TOPIC=house/kitchen/kitchen-light
# states: COMMANDS commands' states after the retained one, within 600 s.
states() { mosquitto_sub -p "$PORT" -t "$TOPIC/state" -C $(($1 + 1)) -W 600 > /dev/null; }
states 20 & SUB=$!; PIDS+=("$SUB")
sleep 0.5
python3 bench/cpu/pace.py "$PORT" "$TOPIC/set" 20 20 1
wait "$SUB" || { echo "bench/cpu/callgrind.sh: the warm-up's states did not all come back" >&2; exit 1; }
states "$COUNT" & SUB=$!; PIDS+=("$SUB")
sleep 0.5
callgrind_control --vgdb-prefix="$WORK/vgdb" -i on "$DAEMON" > /dev/null
python3 bench/cpu/pace.py "$PORT" "$TOPIC/set" "$COUNT" "$RATE" 1
wait "$SUB" || { echo "bench/cpu/callgrind.sh: not every command's state came back" >&2; exit 1; }
callgrind_control --vgdb-prefix="$WORK/vgdb" -i off "$DAEMON" > /dev/null
callgrind_control --vgdb-prefix="$WORK/vgdb" -d "$DAEMON" > /dev/null

total=0
for f in "$OUT"/callgrind.out.*-*; do
    n=$(grep -m1 '^totals:' "$f" | cut -d' ' -f2)
    [[ -n "$n" && "$n" != 0 ]] || continue
    total=$((total + n))
    # The thread's entry: its most inclusive frame among these (the pipe's status is of no interest).
    kind=$(callgrind_annotate --inclusive=yes "$f" 2> /dev/null \
        | grep -oE 'MosquittoNetworkThread|BlockingWorker|_dispatch_worker_thread|start_thread' | head -1 || true)
    kind=${kind:-other}
    echo "$(basename "$f") $kind: $((n / COUNT)) instructions a command"
done
echo "all threads: $((total / COUNT)) instructions a command ($COUNT commands at $RATE/s; profiles in $OUT)"
