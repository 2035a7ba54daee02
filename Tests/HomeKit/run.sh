#!/bin/sh
# The HomeKit bridge against a real HomeKit controller: aiohomekit (PyPI, pinned in
# setup-venv.sh; the controller Home Assistant uses) pairs with housectl-homekit-fixture (the
# bridge on a fake house, on 127.0.0.1 and a free port, without mDNS) by its setup code, lists
# the accessories, reads and writes a light's On, receives an event for a change made elsewhere,
# is refused with a wrong setup code, and unpairs; then the pairing survives a restart.
# Then the same against the release `housectl serve` (test_daemon.py: every device kind, relays,
# events, refusals, modes, a restart, the limit on wrong codes), and the harness itself against
# HAP-python (PyPI, pinned here), a known-good accessory (test_hap_python.py); last, the bridge
# discovered by mDNS through an avahi-daemon of the test's own (test_discovery.py).
#   Tests/HomeKit/run.sh
set -eu
cd "$(dirname "$0")/../.."
# shellcheck source=Tests/common.sh
. Tests/common.sh
PY=$(Tests/HomeKit/setup-venv.sh) || unavailable "homekit test" "could not install aiohomekit into .cache/homekit-venv"
${SWIFT:-swift} build --product housectl-homekit-fixture >&2
fixture="$(${SWIFT:-swift} build --show-bin-path)/housectl-homekit-fixture"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$PY" Tests/HomeKit/test_aiohomekit.py --fixture "$fixture" --config config/house.yaml --state-dir "$WORK/state"
command -v mosquitto_sub > /dev/null || unavailable "homekit test" "mosquitto_sub missing (scripts/ensure-deps.sh installs mosquitto-clients)"
find_housectl "homekit test"
"$PY" Tests/HomeKit/test_daemon.py --housectl "$bin" --work "$WORK/daemon"
HAP_PY=$(Tests/pinned-venv.sh hap-python-venv HAP-python "${HAP_PYTHON_VERSION:-5.0.0}") \
    || unavailable "homekit test" "could not install HAP-python into .cache/hap-python-venv"
"$PY" Tests/HomeKit/test_hap_python.py --python "$HAP_PY" --work "$WORK/hap-python"
# Discovered by mDNS through avahi-daemon, in namespaces of the test's own (with-avahi.sh says why).
status=0
Tests/HomeKit/with-avahi.sh "$PY" Tests/HomeKit/test_discovery.py --fixture "$fixture" --config config/house.yaml --work "$WORK/discovery" || status=$?
if [ "$status" -eq 3 ]; then (unavailable "homekit discovery test" "no avahi-daemon of the test's own") || exit 1; elif [ "$status" -ne 0 ]; then exit "$status"; fi
