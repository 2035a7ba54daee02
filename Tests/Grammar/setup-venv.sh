#!/usr/bin/env bash
# Creates (or updates) the Python venv for the grammar reference harness at
# .cache/grammar-venv (git-ignored) with the pinned hassil, then prints the
# venv's python path.  Idempotent: when the pinned version is already there it
# only checks it and returns at once.  Override the pin with HASSIL_VERSION.
set -euo pipefail

HASSIL_VERSION="${HASSIL_VERSION:-3.13.0}"  # 3.10.0, the data's own dev pin, agrees as well here but reads ~40x slower
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="$ROOT/.cache/grammar-venv"
PY="$VENV/bin/python"

if [ ! -x "$PY" ]; then
    python3 -m venv "$VENV" >&2
fi
if [ "$("$PY" -c 'import importlib.metadata as m; print(m.version("hassil"))' 2>/dev/null)" != "$HASSIL_VERSION" ]; then
    "$PY" -m pip install --quiet --disable-pip-version-check "hassil==$HASSIL_VERSION" >&2
fi
echo "$PY"
