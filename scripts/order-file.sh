#!/usr/bin/env bash
# `make order-file`: regenerates linker/housectl-hot.ld, the code sections `housectl serve` runs,
# which the release link (Package.swift, `leanRelease`) puts together in front of the rest of the
# code, so that the daemon's resident code is what it runs and not the cold code around it
# (docs/BENCHMARKS.md, "What the footprint costs").
#
# It builds the release daemon with a link map, runs it (example house, embedded broker,
# simulated relays) under valgrind's callgrind, sends it COMMANDS set commands (default 1000) as
# row 5 of `make bench` does, stops it with SIGTERM, and lists the input section of every
# instruction of the binary that ran (scripts/hot-sections.py). Run it after larger changes to
# the command path: a section missing from the list still works, it is only placed among the cold
# ones. Needs valgrind and mosquitto-clients (installed when missing); about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
COMMANDS=${COMMANDS:-1000}

for p in valgrind mosquitto-clients; do
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

# The link map says which input section every address of this binary came from.
scripts/release-build.sh --product housectl -Xlinker "-Map=$WORK/housectl.map" >&2
BIN="$(scripts/release-build.sh --show-bin-path)/housectl"

# valgrind 3.19 (Debian 12) cannot read the DWARF 5 of Swift 6: the symbol table is enough.
strip -g -o "$WORK/housectl" "$BIN"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed "s/^  port: 1883$/  port: $PORT/" config/house.yaml > "$WORK/house.yaml"
grep -q "port: $PORT" "$WORK/house.yaml" || { echo "order-file: config/house.yaml has no 'port: 1883' line to replace" >&2; exit 1; }
cp config/phrases.yaml "$WORK/"
mkdir "$WORK/state"

valgrind --tool=callgrind --dump-instr=yes --demangle=no --callgrind-out-file="$WORK/callgrind.out" \
    "$WORK/housectl" serve --gpio sim --state-dir "$WORK/state" --node pi-main --config "$WORK/house.yaml" \
    --devices-dir "$ROOT/devices" --no-web > "$WORK/log" 2>&1 &
DAEMON=$!
for _ in $(seq 600); do
    grep -q " ready: " "$WORK/log" && break
    kill -0 "$DAEMON" 2>/dev/null || { cat "$WORK/log" >&2; echo "order-file: the daemon stopped" >&2; exit 1; }
    sleep 0.2
done
grep -q " ready: " "$WORK/log" || { echo "order-file: the daemon was not ready within 2 minutes" >&2; exit 1; }

timeout 300 mosquitto_sub -p "$PORT" -t house/kitchen/kitchen-light/state -q 1 -C $((COMMANDS + 1)) > "$WORK/states" &
SUB=$!
# The subscription is in place once the retained state arrived.
for _ in $(seq 100); do [ -s "$WORK/states" ] && break; sleep 0.1; done
seq "$COMMANDS" | awk '{ print (NR % 2 ? "ON" : "OFF") }' \
    | mosquitto_pub -p "$PORT" -t house/kitchen/kitchen-light/set -l -q 0
wait "$SUB" || { echo "order-file: $(wc -l < "$WORK/states") of $((COMMANDS + 1)) states arrived" >&2; exit 1; }
kill -TERM "$DAEMON"
wait "$DAEMON" || true
DAEMON=""

mkdir -p linker
python3 scripts/hot-sections.py "$WORK/callgrind.out" "$WORK/housectl" "$WORK/housectl.map" > "$WORK/hot.ld"
mv "$WORK/hot.ld" linker/housectl-hot.ld
# SwiftPM does not relink for a new script: the next release build links again without these.
rm -f "$BIN" "$(dirname "$BIN")/housectl-bench"
echo "order-file: linker/housectl-hot.ld lists $(grep -c '^    ' linker/housectl-hot.ld) sections" >&2
