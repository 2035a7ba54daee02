#!/bin/sh
# Installs the Debian packages housectl needs, when they are missing. The HomeKit bridge: libavahi-client-dev
# (its mDNS announcement) and libqrencode-dev (its setup QR code); its discovery test runs its own
# avahi-daemon and dbus-daemon in namespaces it makes with iproute2's ip (Tests/HomeKit/with-avahi.sh).
set -eu
PKGS="libmosquitto-dev libgpiod-dev mosquitto mosquitto-clients gpiod openssl pkg-config shellcheck systemd tzdata faketime
libavahi-client-dev libqrencode-dev avahi-daemon dbus iproute2"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "ensure-deps: installing$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
