"""Players' buttons, the host's pedal and the top's quadrature encoder on the Pi's GPIO pins.

Contract: `add_buttons`, `add_pedal` and `add_encoder` build the gpiozero driver of one input on
a `SourceHost` and register it as a *local input*: the console claims its pins when it runs
(`LocalInput.start`, which reports the source connected or disconnected) and frees them when
it stops. Each edge reaches the referee stamped with the kernel's (the pin factory's) time;
the encoder's readings go through the same thinning as an MCU's (`SourceHost.angle`). A box
of buttons on a plug may have a presence pin (`watch_plug`): pulled out, it is a lost source.
`GpioButtonsSettings` and `GpioEncoderSettings` are this backend's kinds in the source registry: their
`[sources.NAME]` settings and `attach`.
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

__all__ = ["GpioButtonsSettings", "GpioEncoderSettings", "GpioInput", "add_buttons", "add_encoder",
           "add_lamps", "add_pedal", "watch_plug"]


@dataclass
class GpioInput:
    """A GPIO driver the console starts and closes with itself (see the module docstring)."""

    host: SourceHost
    name: str  # as reported in source_status ("pedal" for the host's pedal)
    device: GpioButtons | GpioEncoder
    what: str  # the detail of "connected"
    players: bool = False  # players' buttons: a pad down at start counts as held from then
    plug: GpioButtons | None = None  # the box's presence pin (`watch_plug`), if it has one

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            self.device.start(loop)
            if self.plug is not None:
                self.plug.start(loop)
        except GpioError as exc:
            self.device.close()
            self.host.report_status(self.name, LinkState.DISCONNECTED, str(exc))
            return
        if self.plug is not None and not self.plug.pressed_pads():
            self.host.report_status(self.name, LinkState.DISCONNECTED, unplugged(self.plug.pins[0]))
            return
        self.host.report_status(self.name, LinkState.CONNECTED, self.what)
        if self.players and isinstance(self.device, GpioButtons):
            now = self.host.clock()
            for pad in self.device.pressed_pads():
                self.host.button_edge(self.name, f"{self.name}:{pad}", True, now)

    def close(self) -> None:
        self.device.close()
        if self.plug is not None:
            self.plug.close()


def unplugged(pin: int) -> str:
    return f"the button box is unplugged (its plug's GPIO pin {pin} is not tied to ground)"


def watch_plug(host: SourceHost, name: str, pin: int, what: str, *,
               pin_factory: str | object = "") -> GpioButtons:
    """The plug of GPIO source `name`'s button box on `pin`: a wire in the plug ties the pin to
    ground while the box is plugged in (the internal pull-up holds it high when it is out). The
    source is reported disconnected when the plug comes out and connected when it is back, so
    an open window waits for it as for any lost box (console/engine/arbiter.py): the pins of a
    pulled cable float at their pull-ups, which no press can be told from."""

    def on_edge(edge: GpioPress) -> None:
        if edge.pressed:
            host.report_status(name, LinkState.CONNECTED, what)
        else:
            host.report_status(name, LinkState.DISCONNECTED, unplugged(pin))

    # A plugged-in box holds its pin down from the start: that is not a stuck pad to report.
    return GpioButtons([pin], on_edge=on_edge, pin_factory=pin_factory, on_error=lambda message: None)


def add_buttons(host: SourceHost, name: str, pins: Sequence[int], *, pull_up: bool = True,
                pin_factory: str | object = "", presence_pin: int = -1) -> GpioButtons:
    """Players' buttons on GPIO pins; pad i of source `name` is pins[i]; `presence_pin` (-1:
    none) says whether their box is plugged in (`watch_plug`)."""

    def on_edge(edge: GpioPress) -> None:
        pad = f"{name}:{edge.pad}"
        if edge.pressed:
            host.feed([Press(name, pad, edge.at_ns)])
        host.button_edge(name, pad, edge.pressed, edge.at_ns)  # a pin still active: held

    buttons = GpioButtons(pins, on_edge=on_edge, pull_up=pull_up, pin_factory=pin_factory,
                          on_error=lambda message: host.report_error(name, message))
    what = f"GPIO pins {list(pins)}"
    plug = None if presence_pin < 0 else watch_plug(host, name, presence_pin, what, pin_factory=pin_factory)
    host.add_local_input(GpioInput(host, name, buttons, what, players=True, plug=plug))
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


@dataclass(frozen=True, kw_only=True)
class GpioButtonsSettings(SourceSettings):
    """``kind = "gpio"``: players' buttons (and their lamps) on the Pi's own pins."""

    pins: tuple[int, ...] = ()  # BCM pin per pad index
    pin_factory: str = ""  # gpiozero's pin factory ("" = gpiozero's choice, "mock" for tests)
    pull_up: bool = True  # buttons to ground with the internal pull-up
    lamp_pins: tuple[int, ...] = ()  # BCM pin of each pad's lamp (() = no lamps)
    presence_pin: int = -1  # BCM pin a wire in the box's plug ties to GND (-1 = none)

    def pad_count(self) -> int:
        return len(self.pins)

    def gpio_pins(self) -> tuple[int, ...]:
        return self.pins

    def replayed(self) -> dict[str, object]:
        return {**super().replayed(), **({"pins": list(self.pins)} if self.pins else {})}

    def problem(self) -> tuple[str, str] | None:
        if not self.pins:
            return ("pins", "a gpio source needs its pins")
        if self.lamp_pins and len(self.lamp_pins) != len(self.pins):
            return ("lamp_pins",
                    f"one lamp pin per pad: {len(self.pins)} pins, {len(self.lamp_pins)} lamp pins")
        if set(self.lamp_pins) & set(self.pins) or len(set(self.lamp_pins)) != len(self.lamp_pins):
            return ("lamp_pins", "each lamp needs a pin of its own, not a button's or another lamp's")
        if self.presence_pin < -1:
            return ("presence_pin", f"a BCM pin, or -1 for none, got {self.presence_pin}")
        if self.presence_pin in (*self.pins, *self.lamp_pins):
            return ("presence_pin", f"pin {self.presence_pin} is a button's or a lamp's: the plug's wire "
                                    "needs its own")
        return None

    def attach(self, host: SourceHost, name: str) -> Stop | None:
        add_buttons(host, name, self.pins, pull_up=self.pull_up, pin_factory=self.pin_factory,
                    presence_pin=self.presence_pin)
        if self.lamp_pins:
            add_lamps(host, name, self.lamp_pins, pin_factory=self.pin_factory)
        return None


@dataclass(frozen=True, kw_only=True)
class GpioEncoderSettings(SourceSettings):
    """``kind = "gpio_encoder"``: the top's quadrature encoder on the Pi's pins."""

    pins: tuple[int, ...] = ()  # BCM pins A, B[, index]
    counts_per_turn: int = 0  # quadrature cycles per turn of the top
    pin_factory: str = ""

    def gpio_pins(self) -> tuple[int, ...]:
        return self.pins

    def replayed(self) -> dict[str, object]:
        return {**super().replayed(), **({"pins": list(self.pins)} if self.pins else {})}

    def problem(self) -> tuple[str, str] | None:
        if len(self.pins) in (2, 3) and self.counts_per_turn >= 4:
            return None
        return ("", "a gpio_encoder needs pins = [A, B] or [A, B, index] and counts_per_turn (at least 4)")

    def attach(self, host: SourceHost, name: str) -> Stop | None:
        add_encoder(host, name, self.pins, self.counts_per_turn, pin_factory=self.pin_factory)
        return None
