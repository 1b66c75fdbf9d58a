#!/usr/bin/env bash
# Make mosquitto's password file for the game table: the four accounts the ACL knows
# (config/mosquitto/acl): "console" (the console daemon), "host" (the host's tablet),
# "display" (the hall's pages) and "jury" (the game jury's sheet of the sports stage).
#
#   scripts/mosquitto-passwords.sh [--console PASS] [--host PASS] [--display PASS] [--jury PASS] PASSWORD_FILE
#
# A password not given is generated (24 random characters). PASSWORD_FILE is replaced whole
# (written beside it, then renamed), holding only salted hashes (mosquitto_passwd); as root it
# is made readable by the mosquitto group, which the broker needs (it reads the file after
# dropping root). The passwords themselves are printed on stdout, once, as TOML: the
# username/password lines go into [mqtt] of the console's config, the comment lines say the
# others. Keep them (`> accounts.toml` under `umask 077`); they cannot be read back.
# Then `systemctl reload mosquitto` (or restart) makes the broker read the new file.
# Passwords given here are visible to other users in the process list while the script runs:
# on a shared machine, let it generate them.
set -euo pipefail

usage() {
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

declare -A pass=([console]="" [host]="" [display]="" [jury]="")
file=""
while [ $# -gt 0 ]; do
  case "$1" in
    --console|--host|--display|--jury)
      [ $# -ge 2 ] || usage
      pass[${1#--}]="$2"
      shift 2
      ;;
    -h|--help) usage ;;
    -*) echo "unknown option $1" >&2; usage ;;
    *)
      [ -z "$file" ] || usage
      file="$1"
      shift
      ;;
  esac
done
[ -n "$file" ] || usage
command -v mosquitto_passwd >/dev/null || { echo "mosquitto_passwd not found: apt-get install mosquitto" >&2; exit 1; }

for user in console host display jury; do
  if [ -z "${pass[$user]}" ]; then
    # 18 random bytes in base64: 24 characters, none that TOML or a shell would quote.
    pass[$user]=$(head -c 18 /dev/urandom | base64)
  fi
  case "${pass[$user]}" in
    *[\"\\]* | *[[:cntrl:]]*)
      echo "the $user password must not contain quotes, backslashes or control characters" >&2
      exit 2
      ;;
  esac
done

dir=$(dirname -- "$file")
tmp=$(mktemp "$dir/.chgk-passwd.XXXXXX")
trap 'rm -f -- "$tmp"' EXIT
mosquitto_passwd -c -b "$tmp" console "${pass[console]}"
mosquitto_passwd -b "$tmp" host "${pass[host]}"
mosquitto_passwd -b "$tmp" display "${pass[display]}"
mosquitto_passwd -b "$tmp" jury "${pass[jury]}"
chmod 0640 "$tmp"
if [ "$(id -u)" -eq 0 ] && getent group mosquitto >/dev/null; then
  chgrp mosquitto "$tmp"
fi
mv -f -- "$tmp" "$file"
trap - EXIT

cat <<TOML
# Broker accounts in $file, made $(date -u +%Y-%m-%dT%H:%M:%SZ) by scripts/mosquitto-passwords.sh.
# The console: these two lines go into [mqtt] of /etc/chgk-console/console.toml.
username = "console"
password = "${pass[console]}"
# The host's tablet: user host, password ${pass[host]}
# The hall's pages: user display, password ${pass[display]}
# The game jury's sheet (the sports stage): user jury, password ${pass[jury]}
TOML
