#!/bin/sh
# The page in a real browser: Debian's chromium, headless, driven through chromium-driver by
# Selenium (python3-selenium), against `housectl serve` with the example house, simulated relays
# and the embedded broker on free ports. Installs what it needs; in CI a missing browser fails.
#   Tests/Browser/run.sh                       the checks
#   Tests/Browser/run.sh --screenshots DIR     also writes each tab at phone and desktop width
set -eu
cd "$(dirname "$0")/../.."
PKGS="chromium chromium-driver python3-selenium fonts-dejavu-core mosquitto-clients"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "browser test: installing$missing"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    # shellcheck disable=SC2086  # the package list is split on purpose
    if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null; }; then
        echo "browser test: could not install$missing"
        [ "${CI:-}" = "true" ] && exit 1
        echo "browser test: SKIPPED (not in CI)"; exit 0
    fi
fi
bin=.build/release/housectl
[ -x "$bin" ] || bin=$(swift build --product housectl --show-bin-path)/housectl
[ -x "$bin" ] || { echo "browser test: no housectl binary (make test builds it)"; exit 2; }
exec /usr/bin/python3 Tests/Browser/test_page.py --housectl "$bin" "$@"
