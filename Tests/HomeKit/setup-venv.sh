#!/usr/bin/env bash
# Creates (or updates) the Python venv for the HomeKit end-to-end test at .cache/homekit-venv
# (git-ignored) with the pinned aiohomekit (the HomeKit controller Home Assistant uses), then
# prints the venv's python path. Idempotent: when the pinned version is already there it only
# checks it and returns at once. Override the pin with AIOHOMEKIT_VERSION.
set -euo pipefail

AIOHOMEKIT_VERSION="${AIOHOMEKIT_VERSION:-4.0.1}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="$ROOT/.cache/homekit-venv"
PY="$VENV/bin/python"

if [ ! -x "$PY" ]; then
    python3 -m venv "$VENV" >&2
fi
if [ "$("$PY" -c 'import importlib.metadata as m; print(m.version("aiohomekit"))' 2>/dev/null)" != "$AIOHOMEKIT_VERSION" ]; then
    "$PY" -m pip install --quiet --disable-pip-version-check "aiohomekit==$AIOHOMEKIT_VERSION" >&2
fi
echo "$PY"
