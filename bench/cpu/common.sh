# Sourced by bench/cpu/run.sh and bench/cpu/callgrind.sh (bash, `set -euo pipefail`, run from the
# repository's root): a scratch directory removed at exit with every process started here, Debian's
# mosquitto on a free port, the example house without its routines, and `housectl serve` on them.
# Defines WORK, PORT, MOSQUITTO, DAEMON (after `start_daemon`), `wait_for` and `fail`.

# The calling script's name, for its messages.
NAME=${0#./}

fail() { echo "$NAME: $*" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/housectl-cpu.XXXXXX")
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill -9 "$pid" 2> /dev/null || true; done
    wait 2> /dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# wait_for FILE PATTERN SECONDS PID: until FILE has PATTERN, while PID runs.
wait_for() {
    local deadline=$((SECONDS + $3))
    until grep -q "$2" "$1" 2> /dev/null; do
        kill -0 "$4" 2> /dev/null || { cat "$1" >&2; fail "process $4 stopped before \"$2\" in $1"; }
        ((SECONDS < deadline)) || fail "no \"$2\" in $1 within $3 s"
        sleep 0.05
    done
}

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\nmax_queued_messages 100000\n' "$PORT" > "$WORK/mosquitto.conf"
mosquitto -c "$WORK/mosquitto.conf" > "$WORK/mosquitto.log" 2>&1 &
MOSQUITTO=$!
PIDS+=("$MOSQUITTO")
# The example house without its routines: "good morning" is relevant 06:00-09:00 on weekdays and
# caught up at start, and would switch the kitchen light while the rounds count its states.
awk '/^routines:/ { skip = 1; next } /^[^ #]/ { skip = 0 } !skip' config/house.yaml > "$WORK/house.yaml"
mkdir "$WORK/state"

# start_daemon SECONDS COMMAND...: `COMMAND serve ...` against that mosquitto (COMMAND: housectl,
# or a wrapper and its arguments before it), waited for until it logs ready, within SECONDS.
start_daemon() {
    local within=$1
    shift
    "$@" serve --config "$WORK/house.yaml" --devices-dir devices --node pi-main --gpio sim \
        --no-web --state-dir "$WORK/state" --broker "127.0.0.1:$PORT" > "$WORK/daemon.log" 2>&1 &
    DAEMON=$!
    PIDS+=("$DAEMON")
    wait_for "$WORK/daemon.log" " ready: " "$within" "$DAEMON"
}
