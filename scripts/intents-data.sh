#!/bin/sh
# Fetches the community sentence grammar, home-assistant-intents (PyPI, Apache-2.0), at the
# version housectl reads (CommunityGrammar.version), and unpacks its per-language JSON files into
# DIR/VERSION (default .cache/intents/VERSION). Nothing is fetched when they are already there.
# Prints the folder. `make run` and `make test` call it; deploy/install.sh installs the folder.
#
#   scripts/intents-data.sh [DIR]
set -eu
cd "$(dirname "$0")/.."
VERSION=$(sed -n 's/.*static let version = "\([0-9.]*\)".*/\1/p' Sources/HouseCore/Phrases/CommunityGrammar.swift)
[ -n "$VERSION" ] || { echo "intents-data: cannot read CommunityGrammar.version" >&2; exit 1; }
DIR=${1:-.cache/intents}/$VERSION
if [ -f "$DIR/en.json" ] && [ -f "$DIR/de.json" ] && [ -f "$DIR/fr.json" ]; then
    echo "$DIR"
    exit 0
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "intents-data: fetching home-assistant-intents $VERSION from PyPI" >&2
python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$WORK" "home-assistant-intents==$VERSION" >&2 \
    || { echo "intents-data: could not fetch home-assistant-intents $VERSION from PyPI (pip download)" >&2; exit 1; }
mkdir -p "$DIR"
python3 - "$WORK" "$DIR" <<'PY'
import glob, os, sys, zipfile
work, target = sys.argv[1], sys.argv[2]
wheel = glob.glob(os.path.join(work, "home_assistant_intents-*.whl"))[0]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith("home_assistant_intents/data/") and name.endswith(".json"):
            with open(os.path.join(target, os.path.basename(name)), "wb") as out:
                out.write(z.read(name))
PY
echo "$DIR"
