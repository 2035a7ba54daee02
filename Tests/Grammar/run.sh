#!/bin/sh
# The differential test of phrase understanding against Home Assistant's own recognizer: for
# English, German and French, hassil (PyPI, pinned in setup-venv.sh) samples sentences from the
# community grammar (home-assistant-intents, fetched by scripts/intents-data.sh) with the
# example house's names, rooms and floors, and reads each as Home Assistant's Assist would; the
# release housectl reads the same sentences with the grammar alone (`housectl phrases
# --grammar-only`); they must agree on intent and slots for at least 99% of them.
# One known difference is kept on purpose: a device's name alone ("the heater") switches
# nothing here, where hassil turns it on.
#   Tests/Grammar/run.sh [LANG ...]     (default: en de fr)
set -eu
cd "$(dirname "$0")/../.."
# shellcheck source=Tests/common.sh
. Tests/common.sh
LANGS=${*:-en de fr}
MIN=${GRAMMAR_MIN_AGREEMENT:-0.99}
DATA=$(scripts/intents-data.sh) || unavailable "grammar test" "could not fetch the community grammar (scripts/intents-data.sh)"
PY=$(Tests/Grammar/setup-venv.sh) || unavailable "grammar test" "could not install hassil into .cache/grammar-venv"
find_housectl "grammar test"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
INTENTS=HassTurnOn,HassTurnOff,HassGetState,HassSetPosition,HassLightSet,HassClimateSetTemperature,HassClimateGetTemperature,HassFanSetSpeed,HassNevermind
failed=0
for lang in $LANGS; do
    mkdir -p "$WORK/$lang/config"
    sed "s/^house:/house:\n  language: $lang/" config/house.yaml > "$WORK/$lang/config/house.yaml"
    set -- --config "$WORK/$lang/config/house.yaml" --devices-dir devices --grammar-dir "$DATA"
    "$bin" phrases --lists --room kitchen "$@" > "$WORK/$lang/lists.json"
    "$PY" Tests/Grammar/hassil_reference.py "$DATA/$lang.json" "$WORK/$lang/lists.json" "$WORK/$lang/hassil.jsonl" \
        --intents "$INTENTS" --seed 1 2> "$WORK/$lang/hassil.log" || { cat "$WORK/$lang/hassil.log"; exit 1; }
    "$PY" -c 'import json, sys
for line in open(sys.argv[1]): print(json.loads(line)["text"])' "$WORK/$lang/hassil.jsonl" > "$WORK/$lang/sentences.txt"
    "$bin" phrases - --json --grammar-only --room kitchen "$@" < "$WORK/$lang/sentences.txt" > "$WORK/$lang/ours.jsonl"
    printf 'grammar %s: ' "$lang"
    if ! "$PY" Tests/Grammar/compare.py "$WORK/$lang/hassil.jsonl" "$WORK/$lang/ours.jsonl" --min-agreement "$MIN" --show 10 > "$WORK/$lang/compare.out"; then
        failed=1
        tail -n 40 "$WORK/$lang/compare.out"
    fi
    grep '^agreement' "$WORK/$lang/compare.out"
done
exit $failed
