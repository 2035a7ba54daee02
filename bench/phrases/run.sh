#!/usr/bin/env bash
# Phrase matcher benchmark: housectl's matcher against Home Assistant's hassil, same templates,
# same lists, same sentences, same run.
#
#   bench/phrases/run.sh [PATH_TO_HOUSECTL_BENCH]
#
# Without a path, builds the release binary (scripts/release-build.sh --product housectl-bench),
# whose `phrase-bench` subcommand measures our side.
# Creates bench/.venv with `pip install hassil` on first use.
# Env: SECONDS_PER_SIDE (default 3), PER_TEMPLATE (default 20), PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BIN=${1:-}
if [[ -z "$BIN" ]]; then
    echo "building release housectl-bench..." >&2
    scripts/release-build.sh --product housectl-bench >&2
    BIN="$(scripts/release-build.sh --show-bin-path)/housectl-bench"
fi
[[ -x "$BIN" ]] || { echo "no executable at $BIN" >&2; exit 1; }

VENV="$ROOT/bench/.venv"
if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c "import hassil" 2>/dev/null; then
    echo "creating $VENV with hassil..." >&2
    "${PYTHON:-python3}" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet hassil >&2
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SECS=${SECONDS_PER_SIDE:-3}
COMMON=(--phrases config/phrases.yaml --natural bench/phrases/natural.txt --per-template "${PER_TEMPLATE:-20}")

"$BIN" phrase-bench "${COMMON[@]}" --export "$WORK"
echo "hassil version $("$VENV/bin/pip" show hassil 2>/dev/null | awk '/^Version/ {print $2}')"
"$VENV/bin/python" bench/phrases/hassil_bench.py "$WORK/intents.json" "$WORK/corpus.txt" "$WORK/hassil.jsonl" "$SECS" | tee "$WORK/hassil.out"
RATE=$(awk '/^rate / {print $2}' "$WORK/hassil.out")
MEAN=$(awk '/^mean / {print $2}' "$WORK/hassil.out")
P99=$(awk '/^p99 / {print $2}' "$WORK/hassil.out")
"$BIN" phrase-bench "${COMMON[@]}" --seconds "$SECS" --hassil-answers "$WORK/hassil.jsonl" --hassil-rate "$RATE" --hassil-mean "$MEAN" --hassil-p99 "$P99"
