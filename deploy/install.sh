#!/bin/sh
# Installs housectl on Raspberry Pi OS bookworm (Debian 12, arm64).
# Idempotent: run it again after `git pull` to upgrade. `--dry-run` prints every action instead
# of doing it, and works on any machine. See deploy/README.md.
set -eu

PREFIX=/usr/local
BIN_DIR=$PREFIX/bin
SHARE_DIR=$PREFIX/share/housectl
CONFIG_DIR=/etc/housectl
UNIT_DIR=/etc/systemd/system
SERVICE_USER=housectl
GPIO_GROUP=gpio
APT_PACKAGES="libmosquitto-dev libgpiod-dev gpiod libsqlite3-dev libavahi-client-dev libqrencode-dev avahi-daemon pkg-config mosquitto-clients openssl"

REPO=$(cd "$(dirname "$0")/.." && pwd)
DRY_RUN=0
WITH_MOSQUITTO=0
SKIP_APT=0
BINARY=""

usage() {
    cat <<USAGE
Usage: deploy/install.sh [options]

Installs housectl as a systemd service on Raspberry Pi OS bookworm (arm64):
  - apt packages: $APT_PACKAGES
  - builds the release binary (scripts/release-build.sh: swift build -c release) and installs $BIN_DIR/housectl
  - the system user '$SERVICE_USER' in the group '$GPIO_GROUP'
  - $CONFIG_DIR/house.yaml from config/ (an existing one is never overwritten), and an empty
    $CONFIG_DIR/house.accepted.yaml the service may write (accepted suggestions)
  - board profiles in $SHARE_DIR/devices
  - $UNIT_DIR/housectl.service (enabled; restarted if it was running)
  - prints the lines to add to the boot configuration for the relay GPIO lines
Run it as root (sudo) from a checkout of the repository. Safe to run again.

Options:
  -n, --dry-run         print every action without doing it (works on any machine)
      --with-mosquitto  also install mosquitto with deploy/mosquitto/ (config, ACL, passwords)
      --binary PATH     install this housectl binary instead of building one
      --skip-apt        do not install packages
  -h, --help            show this help
USAGE
}

die() { echo "install.sh: error: $*" >&2; exit 1; }
say() { echo "==> $*"; }

# Prints the arguments as one shell-quoted command line.
quoted() {
    line=""
    for arg in "$@"; do
        case "$arg" in
            "" | *[!A-Za-z0-9_./:=@%+,-]*) arg="'$(printf '%s' "$arg" | sed "s/'/'\\\\''/g")'" ;;
        esac
        line="$line $arg"
    done
    printf '%s\n' "${line# }"
}

# Runs a command, or only prints it in a dry run.
run() {
    if [ "$DRY_RUN" -eq 1 ]; then
        echo "would run: $(quoted "$@")"
    else
        echo "+ $(quoted "$@")"
        "$@"
    fi
}

while [ $# -gt 0 ]; do
    case "$1" in
        -n|--dry-run) DRY_RUN=1; shift ;;
        --with-mosquitto) WITH_MOSQUITTO=1; shift ;;
        --binary) [ $# -ge 2 ] || die "--binary needs a path"; BINARY=$2; shift 2 ;;
        --skip-apt) SKIP_APT=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done

check_platform() {
    if [ "$DRY_RUN" -eq 1 ]; then
        say "dry run: nothing is changed; platform and root checks skipped"
        return
    fi
    [ "$(id -u)" -eq 0 ] || die "run as root: sudo $0"
    codename=""
    if [ -r /etc/os-release ]; then
        # shellcheck disable=SC1091
        codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    fi
    [ "$codename" = bookworm ] || echo "install.sh: warning: made for bookworm, this is '${codename:-unknown}'" >&2
    arch=$(dpkg --print-architecture 2>/dev/null || uname -m)
    [ "$arch" = arm64 ] || echo "install.sh: warning: made for arm64, this is '$arch'" >&2
}

install_packages() {
    [ "$SKIP_APT" -eq 0 ] || { say "packages: skipped (--skip-apt)"; return; }
    packages=$APT_PACKAGES
    [ "$WITH_MOSQUITTO" -eq 0 ] || packages="$packages mosquitto"
    say "packages: $packages"
    run apt-get update
    # shellcheck disable=SC2086 # one word per package
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $packages
}

build_binary() {
    if [ -n "$BINARY" ]; then
        [ "$DRY_RUN" -eq 1 ] || [ -x "$BINARY" ] || die "--binary $BINARY is not an executable file"
        return
    fi
    say "build: scripts/release-build.sh (swift build -c release) in $REPO"
    if [ "$DRY_RUN" -eq 0 ]; then
        command -v swift >/dev/null 2>&1 \
            || die "swift not found: install the Swift 6 toolchain for aarch64 (https://www.swift.org/install/linux/) and put it on PATH"
    fi
    # Build as the user who called sudo, so .build stays theirs.
    if [ -n "${SUDO_USER:-}" ] && [ "${SUDO_USER:-}" != root ]; then
        run sudo -u "$SUDO_USER" env "PATH=$PATH" "$REPO/scripts/release-build.sh" --product housectl
    else
        run "$REPO/scripts/release-build.sh" --product housectl
    fi
    if [ "$DRY_RUN" -eq 1 ]; then
        BINARY=$REPO/.build/release/housectl
    else
        BINARY=$(swift build --package-path "$REPO" -c release --static-swift-stdlib --show-bin-path)/housectl
    fi
}

create_user() {
    say "user: system user $SERVICE_USER in group $GPIO_GROUP"
    if ! getent group "$GPIO_GROUP" >/dev/null 2>&1; then
        run groupadd --system "$GPIO_GROUP"
    fi
    if ! getent passwd "$SERVICE_USER" >/dev/null 2>&1; then
        run useradd --system --user-group --home-dir /var/lib/housectl --no-create-home \
            --shell /usr/sbin/nologin --comment "housectl smart-home controller" "$SERVICE_USER"
    fi
    run usermod --append --groups "$GPIO_GROUP" "$SERVICE_USER"
}

install_files() {
    say "binary: $BIN_DIR/housectl"
    run install -D -m 0755 "$BINARY" "$BIN_DIR/housectl"

    say "configuration: $CONFIG_DIR"
    run install -d -m 0755 "$CONFIG_DIR"
    # phrases.LANGUAGE.yaml: our own phrases of a house that speaks that language (house.language)
    for path in "$REPO"/config/house.yaml "$REPO"/config/phrases.yaml "$REPO"/config/phrases.*.yaml; do
        name=$(basename "$path")
        if [ ! -f "$REPO/config/$name" ]; then
            echo "install.sh: warning: $REPO/config/$name is missing; not installed" >&2
        elif [ -e "$CONFIG_DIR/$name" ]; then
            say "keeping the existing $CONFIG_DIR/$name"
        else
            run install -m 0640 -o root -g "$SERVICE_USER" "$REPO/config/$name" "$CONFIG_DIR/$name"
        fi
    done
    # The suggestions accepted and dismissed (housectl suggestions accept|dismiss, the page) go to
    # house.accepted.yaml beside house.yaml: the one file there the service may write (the unit's
    # ReadWritePaths), so it is made here, empty, and the service's.
    if [ -e "$CONFIG_DIR/house.accepted.yaml" ]; then
        say "keeping the existing $CONFIG_DIR/house.accepted.yaml"
    else
        run install -m 0644 -o "$SERVICE_USER" -g "$SERVICE_USER" /dev/null "$CONFIG_DIR/house.accepted.yaml"
    fi

    say "board profiles: $SHARE_DIR/devices"
    run install -d -m 0755 "$SHARE_DIR/devices"
    for profile in "$REPO"/devices/*.yaml; do
        [ -f "$profile" ] || continue
        run install -m 0644 "$profile" "$SHARE_DIR/devices/"
    done

    # The community grammar (home-assistant-intents, fetched from PyPI at the pinned version):
    # housectl finds it at share/housectl/intents/VERSION beside its bin/ folder. Without it the
    # controller runs on its own phrases only.
    if grammar=$("$REPO/scripts/intents-data.sh"); then
        say "community grammar: $SHARE_DIR/intents/$(basename "$grammar")"
        run install -d -m 0755 "$SHARE_DIR/intents/$(basename "$grammar")"
        for file in "$REPO/$grammar"/*.json; do
            run install -m 0644 "$file" "$SHARE_DIR/intents/$(basename "$grammar")/"
        done
    else
        echo "install.sh: warning: could not fetch the community grammar; housectl will understand its own phrases only" >&2
    fi

    say "systemd unit: $UNIT_DIR/housectl.service"
    run install -m 0644 "$REPO/deploy/systemd/housectl.service" "$UNIT_DIR/housectl.service"
    run systemctl daemon-reload
    run systemctl enable housectl.service
    # Picks up a new binary when it was running; does not start a fresh install (edit the config first).
    run systemctl try-restart housectl.service
}

install_mosquitto() {
    [ "$WITH_MOSQUITTO" -eq 1 ] || return 0
    say "mosquitto: /etc/mosquitto (config, ACL, password file)"
    if [ -f /etc/mosquitto/mosquitto.conf ] && [ ! -e /etc/mosquitto/mosquitto.conf.housectl-backup ] \
        && ! cmp -s /etc/mosquitto/mosquitto.conf "$REPO/deploy/mosquitto/mosquitto.conf"; then
        run cp -p /etc/mosquitto/mosquitto.conf /etc/mosquitto/mosquitto.conf.housectl-backup
    fi
    run install -m 0644 "$REPO/deploy/mosquitto/mosquitto.conf" /etc/mosquitto/mosquitto.conf
    run install -m 0644 "$REPO/deploy/mosquitto/acl" /etc/mosquitto/acl
    # New users get a generated password, printed once; existing ones keep theirs.
    # housectl's own password goes to a file the daemon reads (mqtt password_file in house.yaml).
    run "$REPO/deploy/mosquitto/make-passwords.sh" -f /etc/mosquitto/passwd -s "$CONFIG_DIR/mqtt-password"
    # The TLS listener's certificates: a private CA and a certificate for this host (kept when present).
    host=$(hostname)
    run "$REPO/deploy/mosquitto/make-certs.sh" -d /etc/mosquitto/certs "$host" "$host.local" localhost 127.0.0.1
    run systemctl restart mosquitto.service
}

print_boot_config() {
    say "boot configuration for the relay GPIO lines (add to /boot/firmware/config.txt, then reboot):"
    if ! run "$BIN_DIR/housectl" deploy boot-config --config "$CONFIG_DIR/house.yaml"; then
        echo "install.sh: warning: could not print the boot configuration; run the command above" \
            "again once $CONFIG_DIR/house.yaml is valid" >&2
    fi
}

if [ ! -f "$REPO/Package.swift" ] || [ ! -f "$REPO/deploy/systemd/housectl.service" ]; then
    die "run deploy/install.sh from a checkout of housectl (no Package.swift in $REPO)"
fi
check_platform
install_packages
build_binary
create_user
install_files
install_mosquitto
print_boot_config
say "done. Edit $CONFIG_DIR/house.yaml, check it with: housectl config check --config $CONFIG_DIR/house.yaml"
say "then: sudo systemctl start housectl && journalctl -u housectl -f"
