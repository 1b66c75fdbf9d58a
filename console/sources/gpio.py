"""Players' buttons, the host's pedal and the top's quadrature encoder on the Pi's GPIO pins.

Contract: `add_buttons`, `add_pedal` and `add_encoder` build the gpiozero driver of one input on
a `Console` and register it as a *local input*: the console claims its pins when it runs
(`LocalInput.start`, which reports the source connected or disconnected) and frees them when
it stops. Each edge reaches the referee stamped with the kernel's (the pin factory's) time.
The `attach_*` functions are this backend's entries in the source registry.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from console.engine.model import HostAction, Press
from console.engine.spin.detector import AngleSample
from console.sources import SourceSettings, Stop
from drivers.gpio_buttons import GpioButtons, GpioPress
from drivers.gpio_encoder import EncoderReading, GpioEncoder
from drivers.gpio_lamps import GpioLamps
from drivers.gpio_pins import GpioError

if TYPE_CHECKING:
    from console.shell.runtime import Console

__all__ = ["GpioInput", "add_buttons", "add_encoder", "add_lamps", "add_pedal", "attach_buttons",
           "attach_encoder"]


@dataclass
class GpioInput:
    """A GPIO driver the console starts and closes with itself (see the module docstring)."""

    console: Console
    name: str  # as reported in source_status ("pedal" for the host's pedal)
    device: GpioButtons | GpioEncoder
    what: str  # the detail of "connected"
    players: bool = False  # players' buttons: a pad down at start counts as held from then

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            self.device.start(loop)
        except GpioError as exc:
            self.console.report_status(self.name, "disconnected", str(exc))
        else:
            self.console.report_status(self.name, "connected", self.what)
            if self.players and isinstance(self.device, GpioButtons):
                now = self.console.clock()
                for pad in self.device.pressed_pads():
                    self.console.button_edge(self.name, f"{self.name}:{pad}", True, now)

    def close(self) -> None:
        self.device.close()


def add_buttons(console: Console, name: str, pins: Sequence[int], *, pull_up: bool = True,
                pin_factory: str | object = "") -> GpioButtons:
    """Players' buttons on GPIO pins; pad i of source `name` is pins[i]."""

    def on_edge(edge: GpioPress) -> None:
        pad = f"{name}:{edge.pad}"
        if edge.pressed:
            console.feed([Press(name, pad, edge.at_ns)])
        console.button_edge(name, pad, edge.pressed, edge.at_ns)  # a pin still active: held

    buttons = GpioButtons(pins, on_edge=on_edge, pull_up=pull_up, pin_factory=pin_factory,
                          on_error=lambda message: console.report_error(name, message))
    console.local_inputs.append(GpioInput(console, name, buttons, f"GPIO pins {list(pins)}",
                                          players=True))
    return buttons


def add_pedal(console: Console, pin: int, action: HostAction | str, *,
              pin_factory: str | object = "", name: str = "pedal") -> GpioButtons:
    """A host's foot pedal (or key) on a GPIO pin: each press is `action`, a host action of the
    game as in its JSON commands, at the edge's time; its status and errors are `name`'s. It is
    never one of the sources (a source may not take its name, nor share its pin)."""
    command = {"action": str(action)}
    console.game.parse_command(command, 0)  # ValueError now, not at the first press

    def on_edge(edge: GpioPress) -> None:
        if edge.pressed:
            console.feed([console.game.parse_command(command, edge.at_ns)])

    pedal = GpioButtons([pin], on_edge=on_edge, pin_factory=pin_factory,
                        on_error=lambda message: console.report_error(name, message))
    console.local_inputs.append(GpioInput(console, name, pedal, f"GPIO pins {[pin]}"))
    return pedal


def add_encoder(console: Console, name: str, pins: Sequence[int], counts_per_turn: int, *,
                pin_factory: str | object = "") -> GpioEncoder:
    """The top's angle from a quadrature encoder (A, B and an optional index pin)."""
    # At the table only the configured angle source feeds the stop detector (games/chgk.py).
    feeds = console.config.table.angle_source in ("", name)

    def on_reading(r: EncoderReading) -> None:
        if feeds:
            console.feed([AngleSample(r.at_ns, r.raw, r.status)])

    encoder = GpioEncoder(
        pins[0], pins[1], counts_per_rev=counts_per_turn,
        pin_index=pins[2] if len(pins) > 2 else None, pin_factory=pin_factory,
        on_reading=on_reading,
        on_error=lambda message: console.report_error(name, message),
    )
    console.local_inputs.append(GpioInput(console, name, encoder, "the top's encoder"))
    return encoder


def add_lamps(console: Console, name: str, pins: Sequence[int], *,
              pin_factory: str | object = "") -> GpioLamps:
    """The lamps of GPIO source `name`: pad i's lamp on pins[i], lit and blinking as the referee
    says (the same masks as an MCU's lamps), claimed and put out with the console's run."""
    lamps = GpioLamps(pins, pin_factory=pin_factory,
                      on_error=lambda message: console.report_error(name, message))
    console.local_inputs.append(lamps)
    console.lamp_outputs[name] = lamps
    return lamps


def attach_buttons(console: Console, name: str, settings: SourceSettings) -> Stop | None:
    add_buttons(console, name, settings.pins, pull_up=settings.pull_up, pin_factory=settings.pin_factory)
    if settings.lamp_pins:
        add_lamps(console, name, settings.lamp_pins, pin_factory=settings.pin_factory)
    return None


def attach_encoder(console: Console, name: str, settings: SourceSettings) -> Stop | None:
    add_encoder(console, name, settings.pins, settings.counts_per_turn, pin_factory=settings.pin_factory)
    return None
