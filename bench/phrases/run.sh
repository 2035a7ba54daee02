#!/usr/bin/env bash
# Phrase matcher benchmark: housectl's matcher against Home Assistant's hassil, same templates,
# same lists, same sentences, same run.
#
#   bench/phrases/run.sh [PATH_TO_HOUSECTL_BENCH]
#
# Without a path, builds the release binary (scripts/release-build.sh --product housectl-bench),
# whose `phrase-bench` subcommand measures our side.
# hassil comes from the differential test's venv (Tests/Grammar/setup-venv.sh: .cache/grammar-venv,
# the pinned version). Two passes: our config/phrases.yaml (exported to hassil's format), then the
# community grammar's English file (scripts/intents-data.sh), which both read as it is.
# Env: SECONDS_PER_SIDE (default 3), PER_TEMPLATE (default 20), GRAMMAR_PER_TEMPLATE (default 3:
# hassil reads the grammar's sentences about 100 times slower than ours).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-}
if [[ -z "$BIN" ]]; then
    echo "building release housectl-bench..." >&2
    scripts/release-build.sh --product housectl-bench >&2
    BIN="$(scripts/release-build.sh --show-bin-path)/housectl-bench"
fi
[[ -x "$BIN" ]] || { echo "no executable at $BIN" >&2; exit 1; }

PYTHON=$(Tests/Grammar/setup-venv.sh)
VENV=$(dirname "$(dirname "$PYTHON")")

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

# The community grammar, read by both as it is, with the sample house's lists.
GRAMMAR="$(scripts/intents-data.sh)/en.json"
echo "== community grammar en"
"$BIN" phrase-bench --grammar "$GRAMMAR" --per-template "${GRAMMAR_PER_TEMPLATE:-3}" --export "$WORK/grammar"
"$VENV/bin/python" bench/phrases/hassil_bench.py "$WORK/grammar/intents.json" "$WORK/grammar/corpus.txt" "$WORK/grammar/hassil.jsonl" "$SECS" "$WORK/grammar/lists.json" | tee "$WORK/grammar/hassil.out"
RATE=$(awk '/^rate / {print $2}' "$WORK/grammar/hassil.out")
MEAN=$(awk '/^mean / {print $2}' "$WORK/grammar/hassil.out")
P99=$(awk '/^p99 / {print $2}' "$WORK/grammar/hassil.out")
"$BIN" phrase-bench --grammar "$GRAMMAR" --per-template "${GRAMMAR_PER_TEMPLATE:-3}" --seconds "$SECS" --hassil-answers "$WORK/grammar/hassil.jsonl" --hassil-rate "$RATE" --hassil-mean "$MEAN" --hassil-p99 "$P99"
