"""The console found by name on the club's Wi-Fi: its avahi service file, and its `.local` name.

Contract: `service_file(config)` is the static service file avahi-daemon (the Pi's mDNS
responder) publishes from /etc/avahi/services/: the display server as `_http._tcp` (the hall's
board at `/`, the host's screen at `path=/host`) and, when the broker runs on this machine, the
broker as `_mqtt._tcp` (its TCP port), both under the name «chgk-console <node>» so that two
tables on one network are told apart. `chgk-console avahi-service --config FILE` prints it
(scripts/install-pi.sh writes it). `local_name()` is this machine's mDNS name
(`<hostname>.local`), which the start log and the demo give beside the address.

Static, not announced by the console itself: avahi already answers for the Pi's name, keeps
answering while the console restarts, and a second responder in the console would race it for
the same records. The file follows the config's ports; the installer writes it again on each
run, and after a change of ports `chgk-console avahi-service` writes it anew.
"""

from __future__ import annotations

import socket
from xml.sax.saxutils import escape

from console.config import Config

__all__ = ["local_name", "service_file"]

LOOPBACK = ("", "127.0.0.1", "localhost", "::1")


def local_name() -> str:
    """This machine's name on mDNS: its host name under `.local` (what avahi answers for)."""
    return f"{socket.gethostname().split('.')[0]}.local"


def service_file(config: Config) -> str:
    """The avahi service file of this console (see the module docstring)."""
    services = []
    if config.display.http_port:
        services.append(_service("_http._tcp", config.display.http_port, "path=/host"))
    if config.mqtt.host in LOOPBACK:  # the broker is this machine's (embedded, or mosquitto here)
        services.append(_service("_mqtt._tcp", config.mqtt.port, None))
    name = escape(f"chgk-console {config.console.node}")
    return ("<?xml version=\"1.0\" standalone='no'?>\n"
            '<!DOCTYPE service-group SYSTEM "avahi-service.dtd">\n'
            "<!-- chgk-console: written by `chgk-console avahi-service` (scripts/install-pi.sh) -->\n"
            f"<service-group>\n  <name>{name}</name>\n{''.join(services)}</service-group>\n")


def _service(kind: str, port: int, txt: str | None) -> str:
    record = f"    <txt-record>{escape(txt)}</txt-record>\n" if txt else ""
    return f"  <service>\n    <type>{kind}</type>\n    <port>{port}</port>\n{record}  </service>\n"
