#!/usr/bin/env bash
# The one release build of this package: `scripts/release-build.sh --product housectl` builds,
# `scripts/release-build.sh --show-bin-path` prints where. Every release build (make test, make
# bench, the VM test, deploy/install.sh) goes through here, because SwiftPM rebuilds every module
# when the flags of two builds into .build/release differ. `--static-swift-stdlib`: one binary,
# no Swift runtime to install on the Pi.
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${SWIFT:-swift}" build -c release --static-swift-stdlib "$@"
