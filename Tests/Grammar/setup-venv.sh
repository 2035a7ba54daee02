#!/usr/bin/env bash
# Creates (or updates) the Python venv for the grammar reference harness at
# .cache/grammar-venv (git-ignored) with the pinned hassil, then prints the
# venv's python path (Tests/pinned-venv.sh).  Override the pin with HASSIL_VERSION.
set -euo pipefail

HASSIL_VERSION="${HASSIL_VERSION:-3.13.0}"  # 3.10.0, the data's own dev pin, agrees as well here but reads ~40x slower
exec "$(dirname "${BASH_SOURCE[0]}")/../pinned-venv.sh" grammar-venv hassil "$HASSIL_VERSION"
