#!/usr/bin/env bash
# The one release build of this package: `scripts/release-build.sh --product housectl` builds,
# `scripts/release-build.sh --show-bin-path` prints where. Every release build (make test, make
# bench, make order-file, the VM test) goes through here, because SwiftPM rebuilds every module
# when the flags of two builds into .build/release differ.
#
# - `--static-swift-stdlib`: one binary, no Swift runtime to install on the Pi.
# - `-function-sections` for every Swift module, the dependencies' too: each function in a section
#   of its own, so that the release link (Package.swift, `leanRelease`) can put the functions the
#   daemon runs together, as linker/housectl-hot.ld lists them (docs/BENCHMARKS.md, "What the
#   footprint costs"). Without it a module's code is one section that the list takes whole or not.
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${SWIFT:-swift}" build -c release --static-swift-stdlib -Xswiftc -Xfrontend -Xswiftc -function-sections "$@"
