#!/usr/bin/env bash
# pinned-venv.sh NAME PACKAGE VERSION: creates (or updates) the Python venv .cache/NAME (git-ignored)
# with PACKAGE==VERSION from PyPI, then prints the venv's python path. Idempotent: when the
# pinned version is already there it only checks it and returns at once. Used by the
# setup-venv.sh of each test that drives a Python peer (Tests/Grammar: hassil; Tests/HomeKit: aiohomekit).
set -euo pipefail

NAME="$1" PACKAGE="$2" VERSION="$3"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.cache/$NAME"
PY="$VENV/bin/python"

if [ ! -x "$PY" ]; then
    python3 -m venv "$VENV" >&2
fi
if [ "$("$PY" -c "import importlib.metadata as m; print(m.version('$PACKAGE'))" 2>/dev/null)" != "$VERSION" ]; then
    "$PY" -m pip install --quiet --disable-pip-version-check "$PACKAGE==$VERSION" >&2
fi
echo "$PY"
