"""The registry of input sources: each kind of device is one backend behind one interface.

Contract (python-can's backend table and gpiozero's pin factories are the models):

* `source_kind(name)` gives the `SourceKind` of ``[sources.X] kind = name``: what it gives the
  games (`roles`: players' buttons, the top's angle), whether it is *ordered*, and its
  settings' class (`settings()`). `kinds()` lists the names.
* A kind's settings are a `SourceSettings` subclass in its backend module: the keys its
  `[sources.X]` table may hold with their defaults, how many pads it has, what must hold of
  them (`problem`), and `attach(host, name)`.
* An *ordered* source reports each scan of its pads whole and in time order, and follows it
  with a watermark (everything up to then has been said): the referee may decide on its
  presses at once. An unordered one (GPIO edges) promises neither, so its presses wait out
  its declared `max_delay_ms`. This is the one place that says which sources are which.
* `settings.attach(host, name)` builds the source's driver on the console's `SourceHost`
  (console/sources/host.py) and returns what to call when the daemon stops. A backend module
  is imported only when a config names its kind: a Pi without pyserial's or gpiozero's
  hardware libraries still runs the games that do not need them.

A new device is one backend module in this package and one entry in `_KINDS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from console.sources.host import SourceHost

BUTTONS = "buttons"  # players' pads: presses and their sources' watermarks
ANGLE = "angle"  # the top's angle sensor


Stop = Callable[[], None]


@dataclass(frozen=True, kw_only=True)
class SourceSettings:
    """What every `[sources.NAME]` table holds: its kind and the timing it declares. Each kind's
    settings are a subclass in its backend module, with their defaults, their checks and
    `attach`: config.py builds the kind's class from the table and refuses a key it lacks."""

    kind: str
    resolution_us: int = 1  # presses closer than this are one scan (a kind may default otherwise)
    max_delay_ms: float = 5.0  # an unordered source's press reaches the console within this

    def pad_count(self) -> int:
        """How many pads it has (a player's pad must exist)."""
        return 0

    def problem(self) -> tuple[str, str] | None:
        """What is wrong with these settings as a whole: (key, what), or None."""
        return None

    def gpio_pins(self) -> tuple[int, ...]:
        """The Pi's GPIO pins its players' inputs take (no host pedal may share one)."""
        return ()

    def device(self) -> str:
        """The device file it opens ("" for none or one found by itself)."""
        return ""

    def replayed(self) -> dict[str, object]:
        """What a journal's header keeps of it for a replay (console/shell/resume.py compares
        it with a config's): its kind, its timing and where it is."""
        return {"kind": self.kind, "resolution_us": self.resolution_us, "max_delay_ms": self.max_delay_ms}

    def attach(self, host: SourceHost, name: str) -> Stop | None:
        """Build the source's driver on `host` as `name`; what to call when the daemon stops."""
        raise NotImplementedError(f"{type(self).__name__} does not attach a source")


@dataclass(frozen=True)
class SourceKind:
    """One kind of input device (see the module docstring)."""

    name: str
    roles: frozenset[str]
    ordered: bool
    settings_path: str  # "module:Class": its `SourceSettings` subclass, in its backend module
    # It keeps what it stamped while its link was lost and sends it again (an MCU's frames):
    # a window waits for that after it is back (console/engine/arbiter.py).
    resends: bool = False

    def settings(self) -> type[SourceSettings]:
        """The dataclass of this kind's `[sources.NAME]` table (importing its backend now)."""
        module, _, cls = self.settings_path.partition(":")
        settings: type[SourceSettings] = getattr(importlib.import_module(module), cls)
        return settings


_KINDS = {
    kind.name: kind for kind in (
        SourceKind("serial_mcu", frozenset({BUTTONS, ANGLE}), ordered=True,
                   settings_path="console.sources.mcu:SerialMcuSettings", resends=True),
        SourceKind("simulated_mcu", frozenset({BUTTONS, ANGLE}), ordered=True,
                   settings_path="console.sources.mcu:SimulatedMcuSettings", resends=True),
        SourceKind("gpio", frozenset({BUTTONS}), ordered=False,
                   settings_path="console.sources.gpio:GpioButtonsSettings"),
        SourceKind("gpio_encoder", frozenset({ANGLE}), ordered=True,
                   settings_path="console.sources.gpio:GpioEncoderSettings"),
        # One report per 10 ms poll, in order, all handsets in it: ordered (console/sources/buzz.py).
        SourceKind("buzz", frozenset({BUTTONS}), ordered=True,
                   settings_path="console.sources.buzz:BuzzSettings"),
        # Each press at its own time, then the least "not pressed as of" of the phones: ordered.
        SourceKind("phones", frozenset({BUTTONS}), ordered=True,
                   settings_path="console.sources.phones:PhonesSettings"),
    )
}


def kinds() -> tuple[str, ...]:
    """Every `[sources.NAME] kind` the console knows."""
    return tuple(_KINDS)


def source_kind(name: str) -> SourceKind:
    """The kind called `name`; KeyError for a name that is not one (config checks names first)."""
    return _KINDS[name]
