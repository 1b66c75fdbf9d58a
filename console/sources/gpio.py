"""Players' buttons, the host's pedal and the top's quadrature encoder on the Pi's GPIO pins.

Contract: `add_buttons`, `add_pedal` and `add_encoder` build the gpiozero driver of one input on
a `SourceHost` and register it as a *local input*: the console claims its pins when it runs
(`LocalInput.start`, which reports the source connected or disconnected) and frees them when
it stops. Each edge reaches the referee stamped with the kernel's (the pin factory's) time;
the encoder's readings go through the same thinning as an MCU's (`SourceHost.angle`).
The `attach_*` functions are this backend's entries in the source registry.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from console.engine.model import AngleSample, HostAction, Press
from console.sources import SourceSettings, Stop
from drivers.gpio_buttons import GpioButtons, GpioPress
from drivers.gpio_encoder import EncoderReading, GpioEncoder
from drivers.gpio_lamps import GpioLamps
from drivers.gpio_pins import GpioError
from drivers.link_state import LinkState

if TYPE_CHECKING:
    from console.sources.host import SourceHost

__all__ = ["GpioInput", "add_buttons", "add_encoder", "add_lamps", "add_pedal", "attach_buttons",
           "attach_encoder"]


@dataclass
class GpioInput:
    """A GPIO driver the console starts and closes with itself (see the module docstring)."""

    host: SourceHost
    name: str  # as reported in source_status ("pedal" for the host's pedal)
    device: GpioButtons | GpioEncoder
    what: str  # the detail of "connected"
    players: bool = False  # players' buttons: a pad down at start counts as held from then

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            self.device.start(loop)
        except GpioError as exc:
            self.host.report_status(self.name, LinkState.DISCONNECTED, str(exc))
        else:
            self.host.report_status(self.name, LinkState.CONNECTED, self.what)
            if self.players and isinstance(self.device, GpioButtons):
                now = self.host.clock()
                for pad in self.device.pressed_pads():
                    self.host.button_edge(self.name, f"{self.name}:{pad}", True, now)

    def close(self) -> None:
        self.device.close()


def add_buttons(host: SourceHost, name: str, pins: Sequence[int], *, pull_up: bool = True,
                pin_factory: str | object = "") -> GpioButtons:
    """Players' buttons on GPIO pins; pad i of source `name` is pins[i]."""

    def on_edge(edge: GpioPress) -> None:
        pad = f"{name}:{edge.pad}"
        if edge.pressed:
            host.feed([Press(name, pad, edge.at_ns)])
        host.button_edge(name, pad, edge.pressed, edge.at_ns)  # a pin still active: held

    buttons = GpioButtons(pins, on_edge=on_edge, pull_up=pull_up, pin_factory=pin_factory,
                          on_error=lambda message: host.report_error(name, message))
    host.add_local_input(GpioInput(host, name, buttons, f"GPIO pins {list(pins)}", players=True))
    return buttons


def add_pedal(host: SourceHost, pin: int, action: HostAction | str, *,
              pin_factory: str | object = "", name: str = "pedal") -> GpioButtons:
    """A host's foot pedal (or key) on a GPIO pin: each press is `action`, a host action of the
    game as in its JSON commands, at the edge's time; its status and errors are `name`'s. It is
    never one of the sources (a source may not take its name, nor share its pin)."""
    command = {"action": str(action)}
    host.host_command(command, 0)  # ValueError now, not at the first press

    def on_edge(edge: GpioPress) -> None:
        if edge.pressed:
            host.feed([host.host_command(command, edge.at_ns)])

    pedal = GpioButtons([pin], on_edge=on_edge, pin_factory=pin_factory,
                        on_error=lambda message: host.report_error(name, message))
    host.add_local_input(GpioInput(host, name, pedal, f"GPIO pins {[pin]}"))
    return pedal


def add_encoder(host: SourceHost, name: str, pins: Sequence[int], counts_per_turn: int, *,
                pin_factory: str | object = "") -> GpioEncoder:
    """The top's angle from a quadrature encoder (A, B and an optional index pin)."""
    # At the table only the configured angle source feeds the stop detector (games/chgk/kind.py).
    feeds = host.takes_angles_from(name)

    def on_reading(r: EncoderReading) -> None:
        if feeds:
            host.angle(AngleSample(r.at_ns, r.raw, r.status))

    encoder = GpioEncoder(
        pins[0], pins[1], counts_per_rev=counts_per_turn,
        pin_index=pins[2] if len(pins) > 2 else None, pin_factory=pin_factory,
        on_reading=on_reading,
        on_error=lambda message: host.report_error(name, message),
    )
    host.add_local_input(GpioInput(host, name, encoder, "the top's encoder"))
    return encoder


def add_lamps(host: SourceHost, name: str, pins: Sequence[int], *,
              pin_factory: str | object = "") -> GpioLamps:
    """The lamps of GPIO source `name`: pad i's lamp on pins[i], lit and blinking as the referee
    says (the same masks as an MCU's lamps), claimed and put out with the console's run."""
    lamps = GpioLamps(pins, pin_factory=pin_factory,
                      on_error=lambda message: host.report_error(name, message))
    host.add_local_input(lamps)
    host.add_lamps(name, lamps)
    return lamps


def attach_buttons(host: SourceHost, name: str, settings: SourceSettings) -> Stop | None:
    add_buttons(host, name, settings.pins, pull_up=settings.pull_up, pin_factory=settings.pin_factory)
    if settings.lamp_pins:
        add_lamps(host, name, settings.lamp_pins, pin_factory=settings.pin_factory)
    return None


def attach_encoder(host: SourceHost, name: str, settings: SourceSettings) -> Stop | None:
    add_encoder(host, name, settings.pins, settings.counts_per_turn, pin_factory=settings.pin_factory)
    return None
