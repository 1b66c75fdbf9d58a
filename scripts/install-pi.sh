#!/usr/bin/env bash
# Install chgk-console on a Raspberry Pi (Raspberry Pi OS) or any Debian 12 machine, from this
# checkout, as a systemd service with a locked-down local broker. Run as root:
#
#   sudo scripts/install-pi.sh [--no-start]
#
# What it does (each step is skipped when already done, so running it again is safe and
# upgrades the code in place; it never overwrites a config or the broker's passwords):
#   1. Debian packages: python3-venv, mosquitto (+ clients), libportaudio2, and python3-lgpio
#      where the distribution has it (Raspberry Pi OS: gpiozero's preferred pin library);
#   2. the groups gpio, input, dialout, audio, plugdev (plain Debian has no gpio group: it is
#      made, and a udev rule gives it the GPIO chips as Raspberry Pi OS does);
#   3. the system user chgk in those groups;
#   4. the code: a copy of this checkout in /opt/chgk-console/src and a fresh venv in
#      /opt/chgk-console/.venv with the package installed into it (never a copied venv: a
#      venv's interpreter paths are absolute);
#   5. /etc/chgk-console/console.toml from config/console.toml, if there is none yet, and
#      /etc/chgk-console/packs (the packs the host chooses on the tablet) with the example pack;
#   6. the broker: config/mosquitto/chgk-console.conf and acl into /etc/mosquitto, the three
#      accounts made once by scripts/mosquitto-passwords.sh (the console's login written into
#      the console's config, the host's and the displays' into /etc/chgk-console/accounts.toml,
#      readable by root only);
#   7. udev rules: the button box gets the stable name /dev/chgk-buttons, the Buzz! controllers
#      and raw USB go to plugdev, the GPIO chips to gpio;
#   8. the systemd unit, enabled, and (unless --no-start, or systemd is not running, as in a
#      chroot) started;
#   9. avahi's service file, so a tablet finds the console by name («chgk-console <node>»,
#      http://<hostname>.local:8080/host): written from the config on every run.
# Environment: CHGK_PREFIX (default /opt/chgk-console), CHGK_ETC (default /etc/chgk-console).
set -euo pipefail

start=1
for arg in "$@"; do
  case "$arg" in
    --no-start) start=0 ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-pi.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "install-pi.sh: run as root (sudo $0)" >&2; exit 1; }

src="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${CHGK_PREFIX:-/opt/chgk-console}"
etc="${CHGK_ETC:-/etc/chgk-console}"
user=chgk
groups=(gpio input dialout audio plugdev)
say() { echo "== $*"; }

say "Debian packages"
# procps: the unit reloads with /bin/kill; rsync: the code copy below; python3-evdev: Debian's
# build of the host keys' library (from PyPI it would be compiled, needing gcc and headers).
# avahi-daemon: the Pi's mDNS responder (Raspberry Pi OS has it; plain Debian may not).
packages=(python3 python3-venv python3-evdev mosquitto mosquitto-clients libportaudio2 procps rsync avahi-daemon)
if apt-cache show python3-lgpio >/dev/null 2>&1; then packages+=(python3-lgpio); fi
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

say "groups and the user $user"
for g in "${groups[@]}"; do
  getent group "$g" >/dev/null || groupadd --system "$g"
done
if ! id "$user" >/dev/null 2>&1; then
  useradd --system --home-dir /var/lib/chgk-console --no-create-home --shell /usr/sbin/nologin "$user"
fi
usermod --append --groups "$(IFS=,; echo "${groups[*]}")" "$user"

say "the code in $prefix"
mkdir -p "$prefix/src"
rsync -a --delete --exclude .git --exclude .venv --exclude '*.egg-info' --exclude __pycache__ \
  --exclude .mypy_cache --exclude .ruff_cache --exclude .pytest_cache "$src/" "$prefix/src/"
# python3-lgpio lives in the system site-packages; the venv sees it only with this flag.
[ -x "$prefix/.venv/bin/python" ] || python3 -m venv --system-site-packages "$prefix/.venv"
"$prefix/.venv/bin/pip" install --quiet --upgrade "$prefix/src"
# On a Raspberry Pi without Debian's python3-lgpio, the lgpio wheel from PyPI (it carries the C
# library): without lgpio gpiozero falls back to slower pin libraries or none.
if grep -qs "Raspberry Pi" /proc/device-tree/model && ! "$prefix/.venv/bin/python" -c "import lgpio" 2>/dev/null; then
  "$prefix/.venv/bin/pip" install --quiet lgpio
fi

say "the config in $etc"
install -d -m 0750 -o root -g "$user" "$etc"
if [ ! -e "$etc/console.toml" ]; then
  install -m 0640 -o root -g "$user" "$src/config/console.toml" "$etc/console.toml"
fi
# The packs the host chooses on the tablet (game.pack_dir): the example one to begin with.
if [ ! -e "$etc/packs" ]; then
  install -d -m 0755 -o root -g "$user" "$etc/packs"
  install -m 0644 "$src/examples/packs/club-evening.toml" "$etc/packs/club-evening.toml"
fi

say "the broker"
install -d /etc/mosquitto/conf.d
install -m 0644 "$src/config/mosquitto/chgk-console.conf" /etc/mosquitto/conf.d/chgk-console.conf
install -m 0644 "$src/config/mosquitto/acl" /etc/mosquitto/chgk-console.acl
if [ ! -e /etc/mosquitto/chgk-console.passwd ]; then
  accounts="$(umask 077; mktemp)"
  "$src/scripts/mosquitto-passwords.sh" /etc/mosquitto/chgk-console.passwd > "$accounts"
  # The console's own login goes into [mqtt] of its config (the shipped file has the keys).
  console_pass="$(sed -n 's/^password = "\(.*\)"$/\1/p' "$accounts")"
  display_pass="$(sed -n 's/^# The hall.s pages: user display, password \(.*\)$/\1/p' "$accounts")"
  # The console's login into [mqtt], the pages' into [display] (style-preserving: tomlkit).
  "$prefix/.venv/bin/python" - "$etc/console.toml" "$console_pass" "$display_pass" <<'EOF'
import sys
import tomlkit
path, console_password, display_password = sys.argv[1:4]
with open(path, encoding="utf-8") as f:
    doc = tomlkit.parse(f.read())
mqtt = doc.setdefault("mqtt", tomlkit.table())
mqtt["host"], mqtt["username"], mqtt["password"] = "127.0.0.1", "console", console_password
display = doc.setdefault("display", tomlkit.table())
display["mqtt_username"], display["mqtt_password"] = "display", display_password
with open(path, "w", encoding="utf-8") as f:
    f.write(tomlkit.dumps(doc))
EOF
  install -m 0600 -o root -g root "$accounts" "$etc/accounts.toml"
  rm -f "$accounts"
  echo "   the host's and the displays' passwords: $etc/accounts.toml (root only)"
fi

say "udev rules"
install -d /etc/udev/rules.d
cat > /etc/udev/rules.d/60-chgk-console.rules <<'EOF'
# chgk-console (scripts/install-pi.sh). The button box: ATmega32U4 (Arduino Leonardo/Pro Micro,
# SparkFun), or a Nano's USB-serial chip (CH340, FTDI FT232R, CP2102) gets a stable name.
SUBSYSTEM=="tty", ATTRS{idVendor}=="2341", ATTRS{idProduct}=="8036", SYMLINK+="chgk-buttons", GROUP="dialout", MODE="0660"
SUBSYSTEM=="tty", ATTRS{idVendor}=="1b4f", ATTRS{idProduct}=="9206", SYMLINK+="chgk-buttons", GROUP="dialout", MODE="0660"
SUBSYSTEM=="tty", ATTRS{idVendor}=="1a86", ATTRS{idProduct}=="7523", SYMLINK+="chgk-buttons", GROUP="dialout", MODE="0660"
SUBSYSTEM=="tty", ATTRS{idVendor}=="0403", ATTRS{idProduct}=="6001", SYMLINK+="chgk-buttons", GROUP="dialout", MODE="0660"
SUBSYSTEM=="tty", ATTRS{idVendor}=="10c4", ATTRS{idProduct}=="ea60", SYMLINK+="chgk-buttons", GROUP="dialout", MODE="0660"
# An FTDI bridge holds received bytes up to 16 ms by default: 1 ms (the console also asks for
# low latency when it opens the port; this holds for any program that opens it).
ACTION=="add", SUBSYSTEM=="usb-serial", DRIVER=="ftdi_sio", ATTR{latency_timer}="1"
# Sony Buzz! controllers (wired 054c:0002, wireless 054c:1000): their HID node and raw USB.
SUBSYSTEM=="hidraw", ATTRS{idVendor}=="054c", ATTRS{idProduct}=="0002", GROUP="plugdev", MODE="0660"
SUBSYSTEM=="hidraw", ATTRS{idVendor}=="054c", ATTRS{idProduct}=="1000", GROUP="plugdev", MODE="0660"
SUBSYSTEM=="usb", ATTRS{idVendor}=="054c", ATTRS{idProduct}=="0002", GROUP="plugdev", MODE="0660"
SUBSYSTEM=="usb", ATTRS{idVendor}=="054c", ATTRS{idProduct}=="1000", GROUP="plugdev", MODE="0660"
# Keyboards, clickers and pedals for the host: the input group (Debian's default, stated).
SUBSYSTEM=="input", KERNEL=="event*", GROUP="input", MODE="0660"
# GPIO chips to the gpio group (Raspberry Pi OS does this itself; plain Debian does not).
SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"
EOF
if command -v udevadm >/dev/null && [ -d /run/udev ]; then
  udevadm control --reload-rules && udevadm trigger || true
fi

say "the systemd unit"
install -d /etc/systemd/system
sed "s|/opt/chgk-console|$prefix|g; s|/etc/chgk-console|$etc|g" "$src/systemd/chgk-console.service" \
  > /etc/systemd/system/chgk-console.service
chmod 0644 /etc/systemd/system/chgk-console.service
"$prefix/.venv/bin/chgk-console" check-config "$etc/console.toml"
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload
  systemctl enable mosquitto chgk-console
  if [ "$start" -eq 1 ]; then
    systemctl restart mosquitto
    systemctl restart chgk-console
  fi
elif command -v systemctl >/dev/null; then
  systemctl enable mosquitto chgk-console  # offline (a chroot): links only
  echo "   systemd is not running here: enabled, not started"
else
  echo "   no systemd here: the unit is installed, not enabled"
fi
say "avahi: the console by name on the network"
install -d /etc/avahi/services
"$prefix/.venv/bin/chgk-console" avahi-service --config "$etc/console.toml" > /etc/avahi/services/chgk-console.service
chmod 0644 /etc/avahi/services/chgk-console.service
echo "   the host's screen: http://$(hostname).local:$(sed -n 's/^http_port = \([0-9]*\).*/\1/p' "$etc/console.toml" | head -1)/host"
say "done: $prefix, config $etc/console.toml, service chgk-console"
