#!/bin/sh
# Creates a private certificate authority for the house and a server certificate for mosquitto's
# TLS listener. Existing files are kept (run it again safely); --renew replaces the server
# certificate, signed by the existing CA.
set -eu

DIR=/etc/mosquitto/certs
DAYS=825
RENEW=0

usage() {
    cat <<USAGE
Usage: make-certs.sh [-d DIR] [--days N] [--renew] [NAME ...]

Creates in DIR (default $DIR):
  ca.key, ca.crt          the house CA (10 years); give ca.crt to every MQTT client
  server.key, server.crt  the broker's certificate for NAMEs (DNS names or IP addresses),
                          valid N days (default $DAYS)
NAMEs default to this host's name and name.local. Existing files are kept.

Options:
  -d, --dir DIR  where the files go
      --days N   validity of the server certificate
      --renew    replace server.key and server.crt
  -h, --help     show this help
USAGE
}

die() { echo "make-certs.sh: $*" >&2; exit 1; }

NAMES=""
while [ $# -gt 0 ]; do
    case "$1" in
        -d|--dir) [ $# -ge 2 ] || die "$1 needs a directory"; DIR=$2; shift 2 ;;
        --days) [ $# -ge 2 ] || die "$1 needs a number"; DAYS=$2; shift 2 ;;
        --renew) RENEW=1; shift ;;
        -h|--help) usage; exit 0 ;;
        -*) die "unknown option $1 (see --help)" ;;
        *[!A-Za-z0-9.:-]*) die "invalid name '$1' (a DNS name or an IP address)" ;;
        *) NAMES="$NAMES $1"; shift ;;
    esac
done
case "$DAYS" in ''|*[!0-9]*) die "--days needs a whole number of days, not '$DAYS'" ;; esac
if [ -z "$NAMES" ]; then
    host=$(hostname)
    NAMES="$host $host.local"
fi
command -v openssl >/dev/null 2>&1 || die "openssl not found (apt-get install openssl)"

san=""
first=""
for name in $NAMES; do
    case "$name" in
        *:*|*[0-9]) if printf '%s' "$name" | grep -Eq '^([0-9]+\.){3}[0-9]+$|:'; then entry="IP:$name"; else entry="DNS:$name"; fi ;;
        *) entry="DNS:$name" ;;
    esac
    san="${san:+$san,}$entry"
    [ -n "$first" ] || first=$name
done

umask 077
mkdir -p "$DIR"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

if [ -f "$DIR/ca.key" ] && [ -f "$DIR/ca.crt" ]; then
    echo "make-certs.sh: keeping the CA in $DIR" >&2
else
    openssl req -x509 -newkey rsa:3072 -nodes -days 3650 -subj "/CN=housectl house CA" \
        -keyout "$DIR/ca.key" -out "$DIR/ca.crt" 2>"$work/log" || { cat "$work/log" >&2; die "openssl could not create the CA"; }
    chmod 0644 "$DIR/ca.crt"
    echo "make-certs.sh: created the CA $DIR/ca.crt" >&2
fi

if [ "$RENEW" -eq 0 ] && [ -f "$DIR/server.key" ] && [ -f "$DIR/server.crt" ]; then
    echo "make-certs.sh: keeping $DIR/server.crt (--renew replaces it)" >&2
    exit 0
fi
printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$san" >"$work/ext"
openssl req -newkey rsa:3072 -nodes -subj "/CN=$first" -keyout "$work/server.key" -out "$work/server.csr" 2>"$work/log" \
    || { cat "$work/log" >&2; die "openssl could not create the server key"; }
openssl x509 -req -in "$work/server.csr" -CA "$DIR/ca.crt" -CAkey "$DIR/ca.key" -CAcreateserial \
    -CAserial "$work/ca.srl" -days "$DAYS" -extfile "$work/ext" -out "$work/server.crt" 2>"$work/log" \
    || { cat "$work/log" >&2; die "openssl could not sign the server certificate"; }
mv "$work/server.key" "$DIR/server.key"
mv "$work/server.crt" "$DIR/server.crt"
chmod 0644 "$DIR/server.crt"
# mosquitto reads the key as its own user.
if [ "$(id -u)" -eq 0 ] && getent group mosquitto >/dev/null 2>&1; then
    chgrp mosquitto "$DIR/server.key"
    chmod 0640 "$DIR/server.key"
fi
echo "make-certs.sh: created $DIR/server.crt for $san" >&2
