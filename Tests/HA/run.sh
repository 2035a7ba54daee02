#!/usr/bin/env bash
# make test-ha: the example house against a real Home Assistant (see Tests/HA/README.md).
# Installs homeassistant from PyPI into .cache/ha/venv once (Python 3.13; about 6 minutes), builds
# housectl, then runs Tests/HA/test_ha.py, which starts our broker, the three nodes and Home
# Assistant on free ports in a temporary directory (removed afterwards) and checks what HA sees.
set -euo pipefail
cd "$(dirname "$0")/../.."
HA_VERSION=${HA_VERSION:-2025.4.4}
venv=.cache/ha/venv
say() { echo "test-ha: $*"; }

find_python() {
    for p in "${HA_PYTHON:-}" "$(command -v python3.13 || true)" /root/.pyenv/versions/3.13*/bin/python3 "$HOME"/.pyenv/versions/3.13*/bin/python3; do
        # A pyenv shim answers `command -v` even when no 3.13 is selected: it must run.
        [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import sys' >/dev/null 2>&1 && { echo "$p"; return; }
    done
    return 1
}

if [ ! -x "$venv/bin/hass" ] || [ "$("$venv/bin/python" -c 'import homeassistant.const as c; print(c.__version__)' 2>/dev/null)" != "$HA_VERSION" ]; then
    python=$(find_python) || { echo "test-ha: Home Assistant $HA_VERSION needs Python 3.13 (set HA_PYTHON)"; exit 2; }
    say "installing homeassistant $HA_VERSION into $venv with $python (about 6 minutes, once)"
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/pip" install -q "homeassistant==$HA_VERSION" "paho-mqtt==2.1.0"
fi

say "building housectl"
swift build --product housectl 2>&1 | grep -E "error|Compiling|Build" | grep -v mktemp || true
bin=$(swift build --product housectl --show-bin-path)/housectl
[ -x "$bin" ] || { echo "test-ha: housectl did not build"; exit 2; }

exec "$venv/bin/python" Tests/HA/test_ha.py "$bin"
