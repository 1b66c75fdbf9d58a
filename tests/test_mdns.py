"""The console found by name (console/shell/mdns.py): the avahi service file that
`chgk-console avahi-service` writes (scripts/install-pi.sh puts it in /etc/avahi/services) is
published by a real avahi-daemon, in a network namespace made by the test (its own loopback,
multicast on; its own /etc/avahi/services and /run/avahi-daemon, bind-mounted), and an mDNS
browse there (python-zeroconf, as a tablet's) finds the host's screen and the broker under
«chgk-console <node>» with the configured ports."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from console.games import load_config
from console.shell.mdns import service_file

ROOT = Path(__file__).resolve().parent.parent

CONFIG = """
[console]
node = "table7"
journal = ""

[game]
kind = "sports"

[mqtt]
host = ""
port = 1884
ws_port = 9004

[display]
http_port = 8181
"""

AVAHI_CONF = """
[server]
host-name=chgktest
domain-name=local
use-ipv4=yes
use-ipv6=no
allow-interfaces=lo
enable-dbus=no
[publish]
publish-workstation=no
"""

NAMESPACE = """
set -e
ip link set lo up
ip link set lo multicast on
mkdir -p /run/avahi-daemon /etc/avahi/services
mount -t tmpfs none /run/avahi-daemon
mount --bind "$SERVICES" /etc/avahi/services
avahi-daemon -f "$AVAHI_CONF" --no-drop-root --no-chroot --no-rlimits 2> "$AVAHI_LOG" &
"$PYTHON" "$BROWSE" 2 20
kill $!
"""


def test_the_console_is_found_by_name_on_mdns(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("a network namespace needs root (CI runs as root)")
    assert shutil.which("avahi-daemon"), "avahi-daemon is not installed (scripts/test.sh installs it)"
    config = tmp_path / "console.toml"
    config.write_text(CONFIG, encoding="utf-8")
    written = subprocess.run([sys.executable, "-m", "console.cli", "avahi-service", "--config", str(config)],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert written == service_file(load_config(config))
    services = tmp_path / "services"
    services.mkdir()
    (services / "chgk-console.service").write_text(written, encoding="utf-8")
    (tmp_path / "avahi.conf").write_text(AVAHI_CONF, encoding="utf-8")
    env = {**os.environ, "SERVICES": str(services), "AVAHI_CONF": str(tmp_path / "avahi.conf"),
           "AVAHI_LOG": str(tmp_path / "avahi.log"), "PYTHON": sys.executable,
           "BROWSE": str(ROOT / "tests" / "mdns_browse.py"), "PYTHONPATH": str(ROOT)}
    browsed = subprocess.run(["unshare", "--net", "--mount", "--fork", "sh", "-c", NAMESPACE],
                             env=env, capture_output=True, text=True, timeout=60, check=False)
    log = (tmp_path / "avahi.log").read_text(encoding="utf-8", errors="replace")
    assert browsed.returncode == 0, browsed.stderr + log
    found = json.loads(browsed.stdout)
    screen_name = "chgk-console table7._http._tcp.local."
    broker_name = "chgk-console table7._mqtt._tcp.local."
    assert set(found) == {screen_name, broker_name}, log
    screen = found[screen_name]
    assert screen["port"] == 8181 and screen["txt"] == {"path": "/host"}
    assert screen["server"] == "chgktest.local." and "127.0.0.1" in screen["addresses"]
    assert found[broker_name]["port"] == 1884


def test_a_broker_elsewhere_is_not_announced_as_this_machines(tmp_path: Path) -> None:
    config = tmp_path / "console.toml"
    config.write_text(CONFIG.replace('host = ""', 'host = "broker.club.lan"'), encoding="utf-8")
    text = service_file(load_config(config))
    assert "_http._tcp" in text and "_mqtt._tcp" not in text
