#!/bin/sh
# with-avahi.sh COMMAND...: runs COMMAND where it has a D-Bus system bus and an avahi-daemon of
# its own to start (Tests/HomeKit/test_discovery.py starts and stops it: AVAHI_CONF names its
# configuration). Loopback carries no multicast on most machines and a CI machine without systemd
# runs neither D-Bus nor avahi, so the test makes a network, mount and PID namespace of its own
# (unshare): its own loopback with the MULTICAST flag, its own /run for the bus and the daemon (the
# host's, if any, and other runs stay apart), and everything started in it ends with it.
set -eu
if [ "${1:-}" != "--inside" ]; then
    for tool in unshare ip dbus-daemon avahi-daemon; do
        command -v "$tool" >/dev/null 2>&1 || { echo "with-avahi: $tool is missing (scripts/ensure-deps.sh installs it)"; exit 3; }
    done
    # Without root, a user namespace maps this user to root inside (where the kernel allows it).
    user=""
    [ "$(id -u)" -ne 0 ] && user="--user --map-root-user"
    # shellcheck disable=SC2086  # $user is zero or two words
    unshare $user --net --mount true 2>/dev/null || { echo "with-avahi: this machine does not let the test make namespaces (unshare)"; exit 3; }
    # shellcheck disable=SC2086
    exec unshare $user --net --mount --pid --fork --mount-proc --propagation private sh "$0" --inside "$@"
fi
shift
ip link set lo up
ip link set lo multicast on
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/dbus /run/avahi-daemon /run/housectl-test
cat > /run/housectl-test/dbus.conf <<'CONF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/dbus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
CONF
export AVAHI_CONF=/run/housectl-test/avahi.conf
cat > "$AVAHI_CONF" <<'CONF'
[server]
use-ipv4=yes
use-ipv6=no
allow-interfaces=lo
ratelimit-interval-usec=0
[publish]
publish-hinfo=no
publish-workstation=no
CONF
dbus-daemon --config-file=/run/housectl-test/dbus.conf --fork --nopidfile
status=0
"$@" || status=$?
avahi-daemon -k 2>/dev/null || true
exit "$status"
