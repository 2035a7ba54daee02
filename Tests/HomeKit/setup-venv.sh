#!/usr/bin/env bash
# Creates (or updates) the Python venv for the HomeKit end-to-end test at .cache/homekit-venv
# (git-ignored) with the pinned aiohomekit (the HomeKit controller Home Assistant uses), then
# prints the venv's python path (Tests/pinned-venv.sh). Override the pin with AIOHOMEKIT_VERSION.
set -euo pipefail

AIOHOMEKIT_VERSION="${AIOHOMEKIT_VERSION:-4.0.1}"
exec "$(dirname "${BASH_SOURCE[0]}")/../pinned-venv.sh" homekit-venv aiohomekit "$AIOHOMEKIT_VERSION"
