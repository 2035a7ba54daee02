#!/usr/bin/env bash
# `make order-file`: regenerates linker/housectl-hot.ld, the code sections `housectl serve` runs,
# which the release link (Package.swift, `leanRelease`) puts together in front of the rest of the
# code, so that the daemon's resident code is what it runs and not the cold code around it
# (docs/BENCHMARKS.md, "What the footprint costs").
#
# 1. It builds the release daemon with a link map, runs it (example house, embedded broker,
#    simulated relays) under valgrind's callgrind, sends it COMMANDS set commands (default 1000)
#    as row 5 of `make bench` does, stops it with SIGTERM, and lists the input section of every
#    instruction of the binary that ran (scripts/hot-sections.py): first what ran while it
#    handled the commands, then what ran only at start-up or shutdown, which the daemon unmaps
#    once it is ready (HouseDaemon/ProcessMemory.swift). Callgrind dumps its counts at ready and
#    after the commands to tell them apart. It does it twice: with the page off (`--no-web`), then
#    on, as row 8 runs it (a first visit, then the page's live stream open during the commands);
#    what only the page's run ran goes at the end of each part, so that either daemon finds the
#    code it runs together.
# 2. Then, ROUNDS times (default 4), it links with the list, runs the daemon at full speed under
#    `perf record -e page-faults` with 10,000 commands (the page off, then on), and refines the
#    list by the code that faulted (scripts/hot-faults.py): cold sections that faulted join the
#    part of the run they faulted in (callgrind misses some, each worth a 64 kB window or more of
#    resident code), start-up sections that faulted after ready move to the commands' part, and
#    sections of the page's end that the daemon without the page faulted on move to its part.
# TRACE=0 skips step 1 and refines the committed list. Run it after larger changes to the command
# path: a section missing from the list still works, it is only placed among the cold ones.
# Needs valgrind, perf (linux-perf), mosquitto-clients and curl (installed when missing); about two
# minutes for step 1 and four per round.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
COMMANDS=${COMMANDS:-1000}
ROUNDS=${ROUNDS:-4}
TRACE=${TRACE:-1}

for p in valgrind linux-perf mosquitto-clients curl; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get install -y -qq "$p" >/dev/null
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/housectl-order.XXXXXX")
DAEMON=""
cleanup() {
    [ -n "$DAEMON" ] && kill -9 "$DAEMON" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

# The link map (made by each build below) says which input section every address came from.
BIN="$(scripts/release-build.sh --show-bin-path)/housectl"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
WEB_PORT=$(free_port)
sed "s/^  port: 1883$/  port: $PORT/" config/house.yaml > "$WORK/house.yaml"
grep -q "port: $PORT" "$WORK/house.yaml" || { echo "order-file: config/house.yaml has no 'port: 1883' line to replace" >&2; exit 1; }
cp config/phrases.yaml "$WORK/"

# run_daemon LOG PAGE WRAPPER...: starts the daemon on a fresh state directory under WRAPPER, with
# the page on (PAGE=page, on WEB_PORT) or off (--no-web), and waits for its ready line (DAEMON:
# the wrapper's pid).
run_daemon() {
    local log=$1 page=$2; shift 2
    local web=(--no-web)
    [ "$page" = page ] && web=(--web-port "$WEB_PORT")
    rm -rf "$WORK/state"; mkdir "$WORK/state"
    "$@" serve --gpio sim --state-dir "$WORK/state" --node pi-main --config "$WORK/house.yaml" \
        --devices-dir "$ROOT/devices" "${web[@]}" > "$log" 2>&1 &
    DAEMON=$!
    for _ in $(seq 600); do
        grep -q " ready: " "$log" && return 0
        kill -0 "$DAEMON" 2>/dev/null || { cat "$log" >&2; echo "order-file: the daemon stopped" >&2; exit 1; }
        sleep 0.2
    done
    echo "order-file: the daemon was not ready within 2 minutes" >&2; exit 1
}

# send_commands N PAGE: N set commands, as row 5 of `make bench`, and waits for their states. With
# PAGE=page, as row 8 does: a first visit (the page and the state), `housectl status`, then the
# page's live stream open while the commands run.
send_commands() {
    local watcher=""
    if [ "$2" = page ]; then
        curl -sf -o /dev/null "http://127.0.0.1:$WEB_PORT/" && curl -sf -o /dev/null "http://127.0.0.1:$WEB_PORT/api/state" \
            || { echo "order-file: the page did not load" >&2; exit 1; }
        # Row 8's peer: the same state asked over MQTT.
        "$BIN" status --config "$WORK/house.yaml" --devices-dir "$ROOT/devices" > /dev/null \
            || { echo "order-file: housectl status failed" >&2; exit 1; }
        curl -sN -o "$WORK/events" "http://127.0.0.1:$WEB_PORT/api/events" &
        watcher=$!
        for _ in $(seq 100); do [ -s "$WORK/events" ] && break; sleep 0.1; done
    fi
    timeout 300 mosquitto_sub -p "$PORT" -t house/kitchen/kitchen-light/state -q 1 -C $(($1 + 1)) > "$WORK/states" &
    local sub=$!
    # The subscription is in place once the retained state arrived.
    for _ in $(seq 100); do [ -s "$WORK/states" ] && break; sleep 0.1; done
    seq "$1" | awk '{ print (NR % 2 ? "ON" : "OFF") }' \
        | mosquitto_pub -p "$PORT" -t house/kitchen/kitchen-light/set -l -q 0
    wait "$sub" || { echo "order-file: $(wc -l < "$WORK/states") of $(($1 + 1)) states arrived" >&2; exit 1; }
    if [ -n "$watcher" ]; then
        kill "$watcher"; wait "$watcher" || true
        grep -q "^event: state" "$WORK/events" || { echo "order-file: the page's stream carried no state" >&2; exit 1; }
    fi
}

mkdir -p linker
if [ "$TRACE" != 0 ]; then
    rm -f "$BIN"
    scripts/release-build.sh --product housectl -Xlinker "-Map=$WORK/housectl.map" >&2
    # valgrind 3.19 (Debian 12) cannot read the DWARF 5 of Swift 6: the symbol table is enough.
    strip -g -o "$WORK/housectl" "$BIN"
    # Two runs, the page off, then on (PAGE). Dumps: .1 start-up (the daemon asks for it as it
    # unmaps that code: valgrind's callgrind.h is installed), .2 the commands; the one at exit,
    # shutdown.
    for page in plain page; do
        run_daemon "$WORK/log" "$page" valgrind --tool=callgrind --dump-instr=yes --demangle=no --vgdb-prefix="$WORK/vgdb" \
            --callgrind-out-file="$WORK/$page.out" "$WORK/housectl"
        send_commands "$COMMANDS" "$page"
        callgrind_control --vgdb-prefix="$WORK/vgdb" -d "$DAEMON" > /dev/null
        kill -TERM "$DAEMON"
        wait "$DAEMON" || true
        DAEMON=""
        [ -s "$WORK/$page.out.1" ] && [ -s "$WORK/$page.out.2" ] \
            || { echo "order-file: callgrind did not dump at start-up and after the commands (is valgrind/callgrind.h installed?)" >&2; exit 1; }
    done
    python3 scripts/hot-sections.py --previous linker/housectl-hot.ld \
        --page "$WORK/page.out.2" --page "$WORK/page.out.1" --page "$WORK/page.out" \
        "$WORK/housectl" "$WORK/housectl.map" "$WORK/plain.out.2" "$WORK/plain.out.1" "$WORK/plain.out" > "$WORK/hot.ld"
    mv "$WORK/hot.ld" linker/housectl-hot.ld
fi

for round in $(seq "$ROUNDS"); do
    # SwiftPM does not relink for a new script.
    rm -f "$BIN"
    scripts/release-build.sh --product housectl -Xlinker "-Map=$WORK/housectl.map" >&2
    cp "$BIN" "$WORK/housectl-run"
    for page in plain page; do
        # The daemon's madvise of its start-up code (at ready) tells start-up faults from the rest.
        run_daemon "$WORK/log" "$page" perf record -q -e page-faults -c 1 -d -e syscalls:sys_enter_madvise \
            -o "$WORK/faults.data" "$WORK/housectl-run"
        send_commands 10000 "$page"
        # The daemon, not perf, gets the signal; perf writes its data once the daemon is gone. SIGKILL:
        # the shutdown's code belongs to the start-up part, and would fault after ready.
        pkill -KILL -f "^$WORK/housectl-run serve" || true
        wait "$DAEMON" || true
        DAEMON=""
        echo "order-file: round $round of $ROUNDS, the page $([ "$page" = page ] && echo on || echo off)" >&2
        python3 scripts/hot-faults.py $([ "$page" = page ] && echo --page) "$WORK/housectl.map" "$WORK/housectl-run" "$WORK/faults.data" \
            < linker/housectl-hot.ld > "$WORK/hot.ld"
        mv "$WORK/hot.ld" linker/housectl-hot.ld
    done
done

# SwiftPM does not relink for a new script: the next release build links again without these.
rm -f "$BIN" "$(dirname "$BIN")/housectl-bench"
echo "order-file: linker/housectl-hot.ld lists $(python3 -B -c 'import sys; sys.path.insert(0, "scripts"); import linkmap; print(sum(map(len, linkmap.read_hot_list(open("linker/housectl-hot.ld").read()))))') sections" >&2
