"""Players' phones as buttons (issue 35): a page the console serves, judged on the press's own time.

Contract: `PhonesSettings` is this backend's kind in the source registry (``kind =
"phones"``): `seats` places, pads ``<name>:0`` .. ``<name>:<seats - 1>``, bound to players as
any pad is (the config's ``pad``, or the host's binding by a press); the phones' page and
WebSocket on `port` (drivers/phone_server.py), joined with the evening's `code` (four random
digits when it is ""). With `seats_file` the code and the seats' key are kept for the evening
(console/sources/phone_keys.py): after a restart each phone comes back to its own seat by
itself. Each phone's page shows whose button it is. Each press reaches the referee at its own time on the
console's clock, followed by the source's watermark (the least "not pressed as of" of its
live phones: drivers/phone_seats.py); the source's state is the seats' (a silent phone: lost,
an open window waits for it). The referee's lamps reach each phone as its own. The host's
screen is shown the code, the page's address with the code in it and its QR code, and each
joined phone's clock (`SourceHost.report_details`); the host frees a seat with ``{"action":
"free_seat", "source": <name>, "seat": k}`` (a phone gone for good no longer holds the source).

Timing, declared for the arbiter: a phone's press is known to within its touch pipeline
(10-30 ms between devices, which no clock sync removes) plus its clock's error, so
`resolution_us` (20 ms by default) is the span within which phones' presses are a photo
finish; `max_delay_ms` (1.5 s) is longer than a phone is given to be silent before it counts as
lost (1 s), so a sleeping phone is waited for, never passed over.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

import segno

from console.engine.model import Press, Watermark
from console.sources import BUTTONS, SourceSettings, Stop
from console.sources.phone_keys import evening_keys
from drivers.link_state import LinkState
from drivers.phone_clock import TOUCH_ALLOWANCE_MS
from drivers.phone_seats import PhoneSeats, SeatsOutput
from drivers.phone_server import PhoneServer

if TYPE_CHECKING:
    from console.sources.host import SourceHost

__all__ = ["PhonesSettings", "add_phones"]

MAX_SEATS = 32
PAGES = {"/": ("text/html; charset=utf-8", "phone.html"),
         "/phone.js": ("text/javascript; charset=utf-8", "phone.js")}


@dataclass(frozen=True, kw_only=True)
class PhonesSettings(SourceSettings):
    """``kind = "phones"``: players' phones (or laptops) as buttons, over the club's Wi-Fi."""

    seats: int = 8  # how many phones may join
    port: int = 8090  # the phones' page and WebSocket (http://<console>:<port>/)
    bind: str = "0.0.0.0"
    code: str = ""  # the join code shown to the hall ("" = four random digits each evening)
    seats_file: str = ""  # the evening's code and seat key, kept across restarts ("" = not kept)
    touch_allowance_ms: float = TOUCH_ALLOWANCE_MS  # ± a touch pipeline's spread between devices
    resolution_us: int = 20_000  # presses closer than this are a photo finish (see the module)
    max_delay_ms: float = 1_500.0

    def pad_count(self) -> int:
        return self.seats

    def problem(self) -> tuple[str, str] | None:
        if not 1 <= self.seats <= MAX_SEATS:
            return ("seats", f"from 1 to {MAX_SEATS}, got {self.seats}")
        if self.code and not (self.code.isdigit() and 4 <= len(self.code) <= 8):
            return ("code", f"4 to 8 digits (typed on a phone's keypad), got {self.code!r}")
        if not 1 <= self.port <= 65535:
            return ("port", f"a TCP port, got {self.port}")
        return None

    def attach(self, host: SourceHost, name: str) -> Stop | None:
        add_phones(host, name, self)
        return None


def add_phones(host: SourceHost, name: str, settings: PhonesSettings) -> PhoneServer:
    """The phones' server of source `name` on `host`: a local input and the phones' lamps."""
    keys = evening_keys(settings.seats_file, settings.code, time.time())
    if keys.problem is not None:
        host.report_error(name, keys.problem)
    code = keys.code
    seats = PhoneSeats(name, settings.seats, code, secret=keys.secret,
                       touch_allowance_ms=settings.touch_allowance_ms, owned=host.owns,
                       owner_names=host.owner_names)
    data = resources.files("console") / "data"
    files = {path: (content_type, (data / file).read_bytes()) for path, (content_type, file) in PAGES.items()}
    takes_buttons = host.takes(BUTTONS)
    where = f"{_host_name(settings.bind)}:{settings.port}"

    def on_output(out: SeatsOutput) -> None:
        for problem in out.problems:
            host.report_error(name, problem)
        if out.state is not None:
            state, detail = out.state
            host.report_status(name, state, f"{detail}; код {code}, страница http://{where}/")
        if takes_buttons and (out.presses or out.mark_ns is not None):
            presses = [Press(name, pad, at) for pad, at in out.presses]
            # An imprecise press makes the source's decisions from its earliest possible time
            # not sure: said on the watermark as it stands, if it has not moved.
            mark = out.mark_ns if out.mark_ns is not None or out.imprecise_from is None else seats.mark_ns
            if mark is None:
                host.feed(presses)
            else:
                host.scan(presses, Watermark(name, mark, out.imprecise_from))

    url = f"http://{where}/?c={code}"
    qr = segno.make(url, error="m").svg_data_uri(scale=4, border=2)  # shown as an <img>, never as markup
    shown = {"kind": "phones", "code": code, "url": url, "qr": qr, "seats": settings.seats}

    def listening(port: int) -> None:
        host.report_status(name, LinkState.CONNECTED, f"телефонов: 0; код {code}, страница http://{where}/")
        host.report_details(name, {**shown, "phones": []})

    server = PhoneServer(seats, bind=settings.bind, port=settings.port, files=files, clock=host.clock,
                         on_output=on_output, on_listening=listening,
                         on_error=lambda message: host.report_error(name, message),
                         on_health=lambda rows: host.report_details(name, {**shown, "phones": rows}))
    host.add_local_input(server)
    host.add_lamps(name, server)

    def free_seat(command: Mapping[str, object]) -> None:
        """The host's {"action": "free_seat", "source": <name>, "seat": k}: seat k (from 1)."""
        unknown = set(command) - {"action", "source", "seat"}
        if unknown:
            raise ValueError(f"unknown key(s) {', '.join(sorted(unknown))}")
        seat = command.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= settings.seats:
            raise ValueError(f"seat: a seat from 1 to {settings.seats}, got {seat!r}")
        server.free(seat - 1)

    host.add_command(name, free_seat)
    return server


def _host_name(bind: str) -> str:
    """Where a phone on the hall's Wi-Fi reaches this machine: its mDNS name for a server on
    every address (console/shell/mdns.py says the same), else the address it listens on."""
    return f"{socket.gethostname().split('.')[0]}.local" if bind in ("", "0.0.0.0", "::") else bind
