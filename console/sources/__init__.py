"""The registry of input sources: each kind of device is one backend behind one interface.

Contract (python-can's backend table and gpiozero's pin factories are the models):

* `source_kind(name)` gives the `SourceKind` of ``[sources.X] kind = name``: what it gives the
  games (`roles`: players' buttons, the top's angle), whether it is *ordered*, how many pads it
  has and what its settings must hold. `kinds()` lists the names.
* An *ordered* source reports each scan of its pads whole and in time order, and follows it
  with a watermark (everything up to then has been said): the referee may decide on its
  presses at once. An unordered one (GPIO edges) promises neither, so its presses wait out
  its declared `max_delay_ms`. This is the one place that says which sources are which.
* `attach(host, name, section)` builds the source's driver on the console's `SourceHost`
  (console/sources/host.py), importing its backend module only then: a Pi without
  pyserial's or gpiozero's hardware libraries still runs the games that do not need them.
  It returns what to call when the daemon stops.

A new device is one backend module in this package and one entry in `_KINDS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from drivers.buzz_report import COLOURS, HANDSETS, POLL_INTERVAL_US
from firmware_proto import MAX_PADS

if TYPE_CHECKING:
    from console.sources.host import SourceHost

BUTTONS = "buttons"  # players' pads: presses and their sources' watermarks
ANGLE = "angle"  # the top's angle sensor


class SourceSettings(Protocol):
    """The `[sources.NAME]` settings a backend reads (console.config.SourceSection)."""

    @property
    def kind(self) -> str: ...
    @property
    def port(self) -> str: ...
    @property
    def baudrate(self) -> int: ...
    @property
    def pads(self) -> int: ...
    @property
    def pins(self) -> tuple[int, ...]: ...
    @property
    def counts_per_turn(self) -> int: ...
    @property
    def pin_factory(self) -> str: ...
    @property
    def pull_up(self) -> bool: ...
    @property
    def resolution_us(self) -> int: ...
    @property
    def buzzer_buttons(self) -> tuple[str, ...]: ...
    @property
    def lamp_pins(self) -> tuple[int, ...]: ...
    @property
    def presence_pin(self) -> int: ...


Stop = Callable[[], None]


@dataclass(frozen=True)
class SourceKind:
    """One kind of input device (see the module docstring)."""

    name: str
    roles: frozenset[str]
    ordered: bool
    pads: Callable[[SourceSettings], int]  # how many pads it has (a player's pad must exist)
    problem: Callable[[SourceSettings], tuple[str, str] | None]  # (key, what is wrong) or None
    backend: str  # "module:function", the function attaching it to a SourceHost
    # It keeps what it stamped while its link was lost and sends it again (an MCU's frames):
    # a window waits for that after it is back (console/engine/arbiter.py).
    resends: bool = False
    defaults: tuple[tuple[str, object], ...] = ()  # settings this kind defaults otherwise (config.py)

    def attach(self, host: SourceHost, name: str, settings: SourceSettings) -> Stop | None:
        """Build this source's driver on `host` (see the module docstring)."""
        module, _, function = self.backend.partition(":")
        build: Callable[[SourceHost, str, SourceSettings], Stop | None] = getattr(
            importlib.import_module(module), function)
        return build(host, name, settings)


def _needs_port(s: SourceSettings) -> tuple[str, str] | None:
    return None if s.port else ("port", "a serial_mcu source needs a port")


def _gpio_buttons(s: SourceSettings) -> tuple[str, str] | None:
    if not s.pins:
        return ("pins", "a gpio source needs its pins")
    if s.lamp_pins and len(s.lamp_pins) != len(s.pins):
        return ("lamp_pins", f"one lamp pin per pad: {len(s.pins)} pins, {len(s.lamp_pins)} lamp pins")
    if set(s.lamp_pins) & set(s.pins) or len(set(s.lamp_pins)) != len(s.lamp_pins):
        return ("lamp_pins", "each lamp needs a pin of its own, not a button's or another lamp's")
    if s.presence_pin < -1:
        return ("presence_pin", f"a BCM pin, or -1 for none, got {s.presence_pin}")
    if s.presence_pin in (*s.pins, *s.lamp_pins):
        return ("presence_pin", f"pin {s.presence_pin} is a button's or a lamp's: the plug's wire "
                                "needs its own")
    return None


def _buzz(s: SourceSettings) -> tuple[str, str] | None:
    if s.resolution_us < POLL_INTERVAL_US:
        # Finer than the poll would let the referee order presses the device cannot order.
        return ("resolution_us", f"a Buzz! reports once per USB poll ({POLL_INTERVAL_US // 1000} ms): "
                                 f"at least {POLL_INTERVAL_US}")
    if not s.buzzer_buttons or any(c not in COLOURS for c in s.buzzer_buttons):
        return ("buzzer_buttons", f"some of {', '.join(COLOURS)}")
    return None


def _encoder_pins(s: SourceSettings) -> tuple[str, str] | None:
    if len(s.pins) in (2, 3) and s.counts_per_turn >= 4:
        return None
    return ("", "a gpio_encoder needs pins = [A, B] or [A, B, index] and counts_per_turn (at least 4)")


# A Buzz! press waits up to one poll (10 ms) for its report, then the USB transfer and the read.
BUZZ_MAX_DELAY_MS = 20.0
MCU_PADS = MAX_PADS  # the wire protocol's pad mask is 16 bits (firmware_proto/PROTOCOL.md)

_KINDS = {
    kind.name: kind for kind in (
        SourceKind("serial_mcu", frozenset({BUTTONS, ANGLE}), ordered=True,
                   pads=lambda s: MCU_PADS, problem=_needs_port,
                   backend="console.sources.mcu:attach_serial", resends=True),
        SourceKind("simulated_mcu", frozenset({BUTTONS, ANGLE}), ordered=True,
                   pads=lambda s: s.pads, problem=lambda s: None,
                   backend="console.sources.mcu:attach_simulated", resends=True),
        SourceKind("gpio", frozenset({BUTTONS}), ordered=False,
                   pads=lambda s: len(s.pins), problem=_gpio_buttons,
                   backend="console.sources.gpio:attach_buttons"),
        SourceKind("gpio_encoder", frozenset({ANGLE}), ordered=True,
                   pads=lambda s: 0, problem=_encoder_pins,
                   backend="console.sources.gpio:attach_encoder"),
        # One report per 10 ms poll, in order, all handsets in it: ordered (console/sources/buzz.py).
        SourceKind("buzz", frozenset({BUTTONS}), ordered=True,
                   pads=lambda s: HANDSETS, problem=_buzz,
                   backend="console.sources.buzz:attach_buzz",
                   defaults=(("resolution_us", POLL_INTERVAL_US), ("max_delay_ms", BUZZ_MAX_DELAY_MS))),
    )
}


def kinds() -> tuple[str, ...]:
    """Every `[sources.NAME] kind` the console knows."""
    return tuple(_KINDS)


def source_kind(name: str) -> SourceKind:
    """The kind called `name`; KeyError for a name that is not one (config checks names first)."""
    return _KINDS[name]
