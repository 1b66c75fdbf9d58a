"""Players' lamps on the host's own GPIO pins, through gpiozero's `LED`: the lamps of GPIO buttons.

Contract: `GpioLamps(pins)` has one lamp per pad (pad i is pins[i]); `set_lamps(on, blink)`
takes the same masks as the button box's LAMPS frame (bit i: pad i; a blinking lamp blinks
whatever `on` says) and may be called before `start`: the state is kept and shown once the pins
are claimed. `start(loop)` claims the pins (a lamp that cannot be had is reported through
`on_error`, the others still work; the buttons do not depend on it); `close()` puts the lamps
out and frees the pins.

Blinking is gpiozero's own `LED.blink` (its background thread toggles the pin), 250 ms on and
250 ms off like the firmware's lamps (firmware/box: bit 18 of the µs timer). Whenever the set of
blinking lamps changes every blinking lamp is restarted together, so they blink in phase, as
the firmware's do (PROTOCOL.md 5.7). `LED`, not `PWMLED`: a club's lamp is on or off (a 12 V
lamp behind a transistor or an LED with its resistor), and PWM needs a pin factory with PWM on
every pin; a dimmable lamp would only swap the class.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from typing import Any

from gpiozero import LED

from drivers.gpio_pins import GpioError, resolve_pin_factory

__all__ = ["BLINK_S", "GpioLamps"]

log = logging.getLogger(__name__)

BLINK_S = 0.25  # on and off, like the firmware's blink


class GpioLamps:
    """See the module docstring."""

    def __init__(self, pins: Sequence[int], *, pin_factory: str | object = "", active_high: bool = True,
                 on_error: Callable[[str], None] | None = None) -> None:
        self._pins = tuple(pins)
        self._pin_factory = pin_factory
        self._active_high = active_high
        self._on_error = on_error or (lambda message: log.warning("GPIO lamps: %s", message))
        self._leds: list[Any | None] = []  # gpiozero LED per pad (None: its pin could not be had)
        self._on = 0
        self._blink = 0
        self._shown: tuple[int, int] | None = None  # (steady lit, blinking) last applied

    @property
    def pins(self) -> tuple[int, ...]:
        return self._pins

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Claim the lamp pins and show the current state (see the module docstring)."""
        try:
            factory, factory_name = resolve_pin_factory(self._pin_factory)
        except GpioError as exc:
            self._on_error(f"lamps: {exc}")
            return
        self._leds = []
        for pad, pin in enumerate(self._pins):
            try:
                self._leds.append(LED(pin, active_high=self._active_high, initial_value=False,
                                      pin_factory=factory))
            except Exception as exc:  # gpiozero raises its own errors for a pin in use or invalid
                self._leds.append(None)
                self._on_error(f"cannot claim lamp pin {pin} (pad {pad}) on pin factory "
                               f"{factory_name}: {exc}")
        self._shown = None
        self._apply()

    def close(self) -> None:
        for led in self._leds:
            if led is not None:
                with contextlib.suppress(Exception):  # closing a lamp must never stop the console
                    led.off()
                    led.close()
        self._leds = []
        self._shown = None

    def set_lamps(self, on: int, blink: int) -> None:
        self._on, self._blink = on, blink
        self._apply()

    def _apply(self) -> None:
        every = (1 << len(self._pins)) - 1
        blink = self._blink & every
        steady = self._on & ~blink & every
        if not self._leds or self._shown == (steady, blink):
            return
        restart_blinking = self._shown is None or self._shown[1] != blink
        self._shown = (steady, blink)
        for pad, led in enumerate(self._leds):
            if led is None:
                continue
            try:
                if blink >> pad & 1:
                    if restart_blinking:
                        led.blink(on_time=BLINK_S, off_time=BLINK_S, background=True)
                elif steady >> pad & 1:
                    led.on()
                else:
                    led.off()
            except Exception as exc:  # a lamp failing is reported; the game goes on
                self._on_error(f"lamp pin {self._pins[pad]} (pad {pad}): {exc}")
