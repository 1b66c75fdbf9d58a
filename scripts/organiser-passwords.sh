#!/usr/bin/env bash
# Make the organiser's broker's accounts for a tournament at several tables: "organiser" (the
# tournament service), "display" (the organiser's page) and "bridge-<node>" for each table's
# bridge (config/mosquitto/bridge-table.conf), and its ACL: config/mosquitto/organiser.acl with
# one section per table appended, letting each bridge write only its own node's topics.
#
#   scripts/organiser-passwords.sh --tables t1,t2,... [--prefix chgk] PASSWORD_FILE ACL_FILE
#
# Every password is generated (24 random characters). Both files are replaced whole (written
# beside, then renamed), mode 0640, group mosquitto as root (the broker reads them after
# dropping root). The passwords are printed on stdout, once, as "account password" lines:
# "organiser" goes into [mqtt] of the service's tournament.toml, "display" into its
# [display], each "bridge-<node>" into that table's bridge conf (remote_password). Keep them
# (`> file` under `umask 077`); they cannot be read back. Then restart (or reload) mosquitto.
set -euo pipefail

usage() {
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

here=$(cd -- "$(dirname -- "$0")" && pwd)
template="$here/../config/mosquitto/organiser.acl"
tables=""
prefix="chgk"
files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --tables) [ $# -ge 2 ] || usage; tables="$2"; shift 2 ;;
    --prefix) [ $# -ge 2 ] || usage; prefix="$2"; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "unknown option $1" >&2; usage ;;
    *) files+=("$1"); shift ;;
  esac
done
[ ${#files[@]} -eq 2 ] && [ -n "$tables" ] || usage
passwd_file=${files[0]}
acl_file=${files[1]}
command -v mosquitto_passwd >/dev/null || { echo "mosquitto_passwd not found: apt-get install mosquitto" >&2; exit 1; }
case "$prefix" in
  *[!A-Za-z0-9_-]* | "") echo "the prefix must be letters, digits, _ or -" >&2; exit 2 ;;
esac

IFS=, read -r -a nodes <<< "$tables"
for node in "${nodes[@]}"; do
  case "$node" in
    *[!A-Za-z0-9_-]* | "" | tournament | bridges)
      echo "a table's node must be letters, digits, _ or - (and not 'tournament' or 'bridges'): '$node'" >&2
      exit 2
      ;;
  esac
done

new_password() { head -c 18 /dev/urandom | base64; }

pdir=$(dirname -- "$passwd_file")
adir=$(dirname -- "$acl_file")
ptmp=$(mktemp "$pdir/.chgk-organiser-passwd.XXXXXX")
atmp=$(mktemp "$adir/.chgk-organiser-acl.XXXXXX")
trap 'rm -f -- "$ptmp" "$atmp"' EXIT

declare -A pass
pass[organiser]=$(new_password)
pass[display]=$(new_password)
mosquitto_passwd -c -b "$ptmp" organiser "${pass[organiser]}"
mosquitto_passwd -b "$ptmp" display "${pass[display]}"
# The shipped ACL, its topics under this prefix, then a section per table.
sed "s|chgk/|$prefix/|g" "$template" > "$atmp"
for node in "${nodes[@]}"; do
  user="bridge-$node"
  pass[$user]=$(new_password)
  mosquitto_passwd -b "$ptmp" "$user" "${pass[$user]}"
  {
    printf '\nuser %s\n' "$user"
    for topic in events state record status 'sheet/#'; do
      printf 'topic write %s/%s/%s\n' "$prefix" "$node" "$topic"
    done
    printf 'topic write %s/bridges/%s\n' "$prefix" "$user"
  } >> "$atmp"
done
chmod 0640 "$ptmp" "$atmp"
if [ "$(id -u)" -eq 0 ] && getent group mosquitto >/dev/null; then
  chgrp mosquitto "$ptmp" "$atmp"
fi
mv -f -- "$ptmp" "$passwd_file"
mv -f -- "$atmp" "$acl_file"
trap - EXIT

echo "# Organiser's broker accounts in $passwd_file (ACL: $acl_file), made $(date -u +%Y-%m-%dT%H:%M:%SZ)."
echo "organiser ${pass[organiser]}"
echo "display ${pass[display]}"
for node in "${nodes[@]}"; do
  echo "bridge-$node ${pass[bridge-$node]}"
done
