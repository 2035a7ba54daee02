#!/usr/bin/env bash
# Which files of the house's code a `set` runs, from the topic to the published state and the
# recorded history: `housectl serve` built with coverage (its own build folder, .build-cov) runs
# twice against Debian's mosquitto on a free port, once started and stopped, once started, sent
# one `set` on house/kitchen/kitchen-light/set, its retained state waited for, and stopped
# (SIGTERM commits what the command wrote). The files whose counters moved only in the second
# run are the command's path; they are listed by module.
#
#   bench/path/files.sh            # builds .build-cov the first time (minutes), then measures
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in mosquitto mosquitto_pub mosquitto_sub python3; do
    command -v "$tool" > /dev/null || { echo "bench/path/files.sh: $tool is missing" >&2; exit 1; }
done
TOOLS=$(dirname "$(command -v swift)")
"${SWIFT:-swift}" build --product housectl --enable-code-coverage --scratch-path .build-cov >&2
BIN=.build-cov/debug/housectl

# shellcheck source=bench/cpu/common.sh
source bench/cpu/common.sh

# run NAME SEND: the daemon with its profile in $WORK/NAME.profraw; SEND=1 sends the command.
run() {
    rm -rf "$WORK/state" && mkdir "$WORK/state"
    export LLVM_PROFILE_FILE="$WORK/$1.profraw"
    start_daemon 120 "$BIN"
    unset LLVM_PROFILE_FILE
    if [[ "$2" == 1 ]]; then
        mosquitto_sub -p "$PORT" -t house/kitchen/kitchen-light/state -C 2 -W 30 > "$WORK/states" &
        local sub=$!
        wait_for "$WORK/states" "OFF" 30 "$sub"
        mosquitto_pub -p "$PORT" -q 1 -t house/kitchen/kitchen-light/set -m ON
        wait "$sub" || fail "no state after the command"
    fi
    kill -TERM "$DAEMON"
    wait "$DAEMON" || fail "the daemon did not stop cleanly"
    "$TOOLS/llvm-profdata" merge -o "$WORK/$1.profdata" "$WORK/$1.profraw"
    "$TOOLS/llvm-cov" export -format=text -instr-profile "$WORK/$1.profdata" "$BIN" > "$WORK/$1.json"
}
run idle 0
run set 1
python3 - "$WORK/idle.json" "$WORK/set.json" "$(pwd)/Sources/" <<'PY'
import json, sys
def counts(path, root):
    out = {}
    for f in json.load(open(path))["data"][0]["files"]:
        name = f["filename"]
        if name.startswith(root):
            out[name[len(root):]] = sum(s[2] for s in f["segments"] if s[3] and s[4])
    return out
idle, cmd, root = counts(sys.argv[1], sys.argv[3]), counts(sys.argv[2], sys.argv[3]), sys.argv[3]
moved = sorted(f for f in cmd if cmd[f] > idle.get(f, 0))
modules = {}
for f in moved: modules.setdefault(f.split("/")[0], []).append(f)
for m in sorted(modules):
    print(f"{m}: {len(modules[m])}")
    for f in modules[m]: print(f"  {f}  (+{cmd[f] - idle.get(f, 0)})")
house = sum(len(v) for k, v in modules.items() if k in ("HouseCore", "HouseDaemon", "HouseGPIO"))
print(f"house's code (HouseCore, HouseDaemon, HouseGPIO): {house} files; all: {len(moved)}")
PY
