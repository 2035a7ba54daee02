#!/bin/sh
# Creates or updates the mosquitto password file for housectl's MQTT users.
# Passwords are handed to mosquitto_passwd on stdin (never on a command line), and generated
# passwords are printed once on stdout and nowhere else: do not pipe this script into a log.
set -eu
set +x

DEFAULT_USERS="housectl homeassistant nodered"
FILE=/etc/mosquitto/passwd
RESET=0
SECRET_FILE=""

usage() {
    cat <<USAGE
Usage: make-passwords.sh [-f FILE] [-s SECRET_FILE] [--reset] [USER ...]

Creates FILE (default $FILE) or adds/updates users in it with mosquitto_passwd.
Users default to: $DEFAULT_USERS

The password for USER is taken from the environment variable MQTT_PASSWORD_<USER>
(upper case, '-' and '.' become '_'), e.g. MQTT_PASSWORD_HOMEASSISTANT=... .
Without one, a user already in FILE keeps its password; a new user (or every user with
--reset) gets a random password, printed once on stdout: store it in your automation's
secrets and in house.yaml's mqtt password_file for the housectl user.

Options:
  -f, --file FILE         the password file to write
  -s, --secret-file PATH  write the password set for the user 'housectl' to PATH (mode 0640,
                          group housectl) instead of printing it: the daemon's mqtt password_file
      --reset             generate new passwords for users that have no MQTT_PASSWORD_<USER>
  -h, --help              show this help
USAGE
}

die() { echo "make-passwords.sh: $*" >&2; exit 1; }

USERS=""
while [ $# -gt 0 ]; do
    case "$1" in
        -f|--file) [ $# -ge 2 ] || die "$1 needs a file name"; FILE=$2; shift 2 ;;
        -s|--secret-file) [ $# -ge 2 ] || die "$1 needs a file name"; SECRET_FILE=$2; shift 2 ;;
        --reset) RESET=1; shift ;;
        -h|--help) usage; exit 0 ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) USERS="$USERS $1"; shift ;;
    esac
done
[ -n "$USERS" ] || USERS=$DEFAULT_USERS

command -v mosquitto_passwd >/dev/null 2>&1 || die "mosquitto_passwd not found (apt-get install mosquitto)"

random_password() {
    # 24 characters from [A-Za-z0-9]: about 143 bits.
    LC_ALL=C tr -dc 'A-Za-z0-9' </dev/urandom | head -c 24
}

env_password() {
    # Prints the value of MQTT_PASSWORD_<USER>, or nothing.
    var="MQTT_PASSWORD_$(printf '%s' "$1" | tr 'a-z.-' 'A-Z__')"
    eval "printf '%s' \"\${$var:-}\""
}

umask 077
if [ ! -e "$FILE" ]; then
    : >"$FILE" || die "cannot create $FILE"
fi

generated=""
for user in $USERS; do
    case "$user" in
        *[!A-Za-z0-9_.-]*) die "invalid user name '$user' (letters, digits, '_', '.', '-')" ;;
    esac
    password=$(env_password "$user")
    if [ -z "$password" ]; then
        if [ "$RESET" -eq 0 ] && grep -q "^$user:" "$FILE"; then
            echo "make-passwords.sh: $user: kept the existing password" >&2
            continue
        fi
        password=$(random_password)
        if [ "$user" != housectl ] || [ -z "$SECRET_FILE" ]; then
            generated="$generated$user $password
"
        fi
    fi
    if [ "$user" = housectl ] && [ -n "$SECRET_FILE" ]; then
        printf '%s\n' "$password" >"$SECRET_FILE" || die "cannot write $SECRET_FILE"
        if [ "$(id -u)" -eq 0 ] && getent group housectl >/dev/null 2>&1; then
            chgrp housectl "$SECRET_FILE"
            chmod 0640 "$SECRET_FILE"
        fi
        echo "make-passwords.sh: housectl: password written to $SECRET_FILE" >&2
    fi
    printf '%s\n%s\n' "$password" "$password" | mosquitto_passwd "$FILE" "$user" >/dev/null \
        || die "mosquitto_passwd failed for $user on $FILE"
    echo "make-passwords.sh: $user: password set in $FILE" >&2
done

# mosquitto reads the file as its own user; nobody else may.
if [ "$(id -u)" -eq 0 ] && getent group mosquitto >/dev/null 2>&1; then
    chown root:mosquitto "$FILE"
    chmod 0640 "$FILE"
fi

if [ -n "$generated" ]; then
    echo "Generated passwords (shown once, not stored anywhere else):"
    printf '%s' "$generated" | while read -r user password; do
        printf '  %s: %s\n' "$user" "$password"
    done
fi
