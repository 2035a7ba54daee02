#!/bin/sh
# The page in a real browser: Debian's chromium, headless, driven through chromium-driver by
# Selenium (python3-selenium), against `housectl serve` with the example house, simulated relays
# and the embedded broker on free ports; zbarimg (zbar-tools) reads the HomeKit QR code the page
# draws. Installs what it needs; in CI a missing browser fails.
#   Tests/Browser/run.sh                       the checks
#   Tests/Browser/run.sh --screenshots DIR     also writes each tab at phone and desktop width
set -eu
cd "$(dirname "$0")/../.."
# shellcheck source=Tests/common.sh
. Tests/common.sh
PKGS="chromium chromium-driver python3-selenium fonts-dejavu-core mosquitto-clients zbar-tools"
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
        unavailable "browser test" "could not install$missing"
    fi
fi
find_housectl "browser test"
exec /usr/bin/python3 Tests/Browser/test_page.py --housectl "$bin" "$@"
