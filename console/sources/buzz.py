"""Sony Buzz! USB buzzers as a button source: handset i is pad ``<name>:i``, its red lamp the pad's lamp.

Contract: `add_buzz(host, name, port, ...)` builds the Buzz! driver (drivers/buzz.py) of
source `name` on a `SourceHost`: a local input the console opens when it runs (reported
connected or disconnected, retried until it appears, reopened after an unplug) and a lamp
output the referee's lamps reach. In a game that takes buttons, every report goes to the
referee as the presses it holds (stamped with the report's arrival; read just after the
console was held up, with the hold's start and as unsure: `SourceHost.read_time`) followed
by a watermark one resolution before that arrival. A Buzz! sends its reports in order, each with every
handset in it, but their arrival stamps are not quantised like an MCU's timer: the next
report may be read less than a poll after this one, and a press made within the poll
interval after this report's must still be judged a tie with it. The referee's arbiter counts
an ordered source as having reported a resolution past its watermark (a scan quantum), hence
the watermark one resolution back: a first Buzz! press is final once the next report arrives
a resolution later, or after the declared max_delay_ms (about 30 ms after the press: the
honest price of a 10 ms poll). Its timing (resolution_us of at least the 10 ms poll,
max_delay_ms) is declared in the source's settings, whose defaults they are. `BuzzSettings` is
this backend's kind in the source registry: its `[sources.NAME]` settings and `attach`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from console.engine.model import Press, Watermark
from console.sources import BUTTONS, SourceSettings, Stop
from drivers.buzz import BuzzLink
from drivers.buzz_report import COLOURS, HANDSETS, POLL_INTERVAL_US

if TYPE_CHECKING:
    from console.sources.host import SourceHost

__all__ = ["BuzzSettings", "add_buzz"]


def add_buzz(host: SourceHost, name: str, port: str, *, buzzer_buttons: tuple[str, ...] = ("red",),
             resolution_us: int, retry_interval: float = 1.0) -> BuzzLink:
    """A Buzz! receiver at `port` ("" = the first one found by its USB ids)."""
    takes_buttons = host.takes(BUTTONS)
    vouched_ns = resolution_us * 1000  # see the module docstring
    pads = tuple(f"{name}:{h}" for h in range(4))

    dated = 0  # the latest time a press was dated at: never earlier than one before it

    def on_report(handsets: tuple[int, ...], read_ns: int) -> None:
        nonlocal dated
        if takes_buttons:
            # The report carries no time: read after a hold it is dated at the hold's start
            # and marked unsure (SourceHost.read_time).
            at_ns, unsure_from = host.read_time(read_ns)
            dated = max(dated, at_ns)
            presses = [Press(name, pads[h], dated) for h in handsets]
            host.feed([*presses, Watermark(name, read_ns - vouched_ns, lost_from=unsure_from)])

    link = BuzzLink(
        port,
        on_report=on_report,
        on_status=lambda state, detail: host.report_status(name, state, detail),
        on_error=lambda message: host.report_error(name, message),
        buzzer_buttons=buzzer_buttons,
        resolution_us=resolution_us,
        retry_interval=retry_interval,
        clock=host.clock,  # the console's one timebase (a test's scripted clock, too)
    )
    host.add_local_input(link)
    host.add_lamps(name, link)
    return link


# A Buzz! press waits up to one poll (10 ms) for its report, then the USB transfer and the read.
BUZZ_MAX_DELAY_MS = 20.0


@dataclass(frozen=True, kw_only=True)
class BuzzSettings(SourceSettings):
    """``kind = "buzz"``: Sony Buzz! USB buzzers, four handsets to a receiver."""

    port: str = ""  # the receiver's hidraw/usb path ("" = the first one found by its USB ids)
    buzzer_buttons: tuple[str, ...] = ("red",)  # which of a handset's buttons buzz
    # Finer than the poll would let the referee order presses the device cannot order.
    resolution_us: int = POLL_INTERVAL_US
    max_delay_ms: float = BUZZ_MAX_DELAY_MS

    def pad_count(self) -> int:
        return HANDSETS

    def device(self) -> str:
        return self.port

    def replayed(self) -> dict[str, object]:
        return {**super().replayed(), **({"port": self.port} if self.port else {})}

    def problem(self) -> tuple[str, str] | None:
        if self.resolution_us < POLL_INTERVAL_US:
            return ("resolution_us", f"a Buzz! reports once per USB poll ({POLL_INTERVAL_US // 1000} ms): "
                                     f"at least {POLL_INTERVAL_US}")
        if not self.buzzer_buttons or any(c not in COLOURS for c in self.buzzer_buttons):
            return ("buzzer_buttons", f"some of {', '.join(COLOURS)}")
        return None

    def attach(self, host: SourceHost, name: str) -> Stop | None:
        add_buzz(host, name, self.port, buzzer_buttons=self.buzzer_buttons, resolution_us=self.resolution_us)
        return None
