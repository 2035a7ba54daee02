#!/usr/bin/env bash
# The daemon's instructions and heap allocations per command, by thread, that the machine's noise
# cannot move (see docs/BENCHMARKS.md): `housectl serve --gpio sim` under valgrind's callgrind
# against Debian's mosquitto (its own, on a free port), COUNT QoS 1 commands on
# house/kitchen/kitchen-light/set paced at RATE a second, one at a time as row 1's come, counted
# after 20 warm-up commands (the instrumentation is switched on then: start-up is not in the
# figures). The same binary gives the same counts within about 2%. Timers' work (the recorder's
# 100 ms commit, the energy figure's tick) is spread over the commands of its interval: compare
# two builds at the same RATE, not with row 2's CPU figures.
#
#   bench/cpu/callgrind.sh [HOUSECTL] [COUNT] [RATE]              # default: the release housectl, 400, 40
#   bench/cpu/callgrind.sh --echo [HOUSECTL_BENCH] [COUNT] [RATE] # the echo client, the same way
#   bench/cpu/callgrind.sh ./old/housectl; bench/cpu/callgrind.sh ./new/housectl   # an A/B
#
# --echo measures `housectl-bench echo` (a plain MQTTClient that republishes every message of the
# set topic onto the state topic, retained, QoS 1: two hops like set -> daemon -> state) under the
# same tool, broker and load: row 9's peer. Prints one line per thread (instructions and heap
# allocations per command; the MQTT thread is MosquittoNetworkThread, the commit thread
# BlockingWorker, the bus's consumer on Swift's pool _dispatch_worker_thread) and the total, "all threads: N
# instructions a command, A allocations a command (...)", which housectl-bench's row 9 reads.
# Allocations are the calls to malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign
# (bench/cpu/allocs.py). Leaves the profiles in OUT (default .build/callgrind, or
# .build/callgrind-echo) for callgrind_annotate. valgrind 3.19 cannot read Swift 6's DWARF 5:
# the binary is run from a `strip -g` copy.
set -euo pipefail
cd "$(dirname "$0")/../.."
ECHO=
if [[ "${1:-}" == --echo ]]; then
    ECHO=1
    shift
fi
BINARY=${1:-$(scripts/release-build.sh --show-bin-path)/$([[ -n "$ECHO" ]] && echo housectl-bench || echo housectl)}
COUNT=${2:-400}
RATE=${3:-40}
OUT=${OUT:-.build/callgrind${ECHO:+-echo}}
for tool in valgrind callgrind_control callgrind_annotate mosquitto mosquitto_sub python3 strip; do
    command -v "$tool" > /dev/null || { echo "bench/cpu/callgrind.sh: $tool is missing (apt-get install valgrind mosquitto mosquitto-clients binutils)" >&2; exit 1; }
done
((COUNT > 0 && COUNT % 2 == 0)) || { echo "bench/cpu/callgrind.sh: COUNT must be even (ON, OFF, ...)" >&2; exit 1; }
[[ -x "$BINARY" ]] || { echo "bench/cpu/callgrind.sh: no $([[ -n "$ECHO" ]] && echo housectl-bench || echo housectl) at $BINARY (make bench builds it)" >&2; exit 1; }

# shellcheck source=bench/cpu/common.sh
source bench/cpu/common.sh
mkdir -p "$OUT"
rm -f "$OUT"/callgrind.out*
VALGRIND=(valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes
    --callgrind-out-file="$OUT/callgrind.out" --vgdb-prefix="$WORK/vgdb")
if [[ -n "$ECHO" ]]; then
    strip -g -o "$WORK/housectl-bench" "$BINARY"
    "${VALGRIND[@]}" "$WORK/housectl-bench" echo --port "$PORT" > "$WORK/daemon.log" 2>&1 &
    DAEMON=$!
    PIDS+=("$DAEMON")
    wait_for "$WORK/daemon.log" " ready: " 120 "$DAEMON"
else
    strip -g -o "$WORK/housectl" "$BINARY"
    start_daemon 120 "${VALGRIND[@]}" "$WORK/housectl"
fi

TOPIC=house/kitchen/kitchen-light
# subscribe N: a subscriber for the retained state and N more, once the retained one came (so the
# first command's state is not missed); SUB is its pid.
subscribe() {
    : > "$WORK/states"
    mosquitto_sub -p "$PORT" -t "$TOPIC/state" -C $(($1 + 1)) -W 600 > "$WORK/states" &
    SUB=$!
    PIDS+=("$SUB")
    wait_for "$WORK/states" "O" 30 "$SUB"
}
subscribe 20
python3 bench/cpu/pace.py "$PORT" "$TOPIC/set" 20 20 1
wait "$SUB" || fail "the warm-up's states did not all come back"
subscribe "$COUNT"
callgrind_control --vgdb-prefix="$WORK/vgdb" -i on "$DAEMON" > /dev/null
python3 bench/cpu/pace.py "$PORT" "$TOPIC/set" "$COUNT" "$RATE" 1
wait "$SUB" || fail "not every command's state came back"
callgrind_control --vgdb-prefix="$WORK/vgdb" -i off "$DAEMON" > /dev/null
callgrind_control --vgdb-prefix="$WORK/vgdb" -d "$DAEMON" > /dev/null

per() { awk -v n="$1" -v c="$COUNT" 'BEGIN { printf "%.1f", n / c }'; }
total=0
allocations=0
for f in "$OUT"/callgrind.out.*-*; do
    n=$(grep -m1 '^totals:' "$f" | cut -d' ' -f2)
    [[ -n "$n" && "$n" != 0 ]] || continue
    total=$((total + n))
    a=$(python3 bench/cpu/allocs.py "$f" | awk '{ print $NF }')
    allocations=$((allocations + a))
    # The thread's entry: its most inclusive frame among these (the pipe's status is of no interest).
    kind=$(callgrind_annotate --inclusive=yes "$f" 2> /dev/null \
        | grep -oE 'MosquittoNetworkThread|BlockingWorker|_dispatch_worker_thread|start_thread' | head -1 || true)
    kind=${kind:-other}
    echo "$(basename "$f") $kind: $((n / COUNT)) instructions a command, $(per "$a") allocations a command"
done
echo "all threads: $((total / COUNT)) instructions a command, $(per "$allocations") allocations a command ($([[ -n "$ECHO" ]] && echo "echo client" || echo daemon), $COUNT commands at $RATE/s; profiles in $OUT)"
