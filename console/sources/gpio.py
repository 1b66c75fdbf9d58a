"""Players' buttons and the top's quadrature encoder on the Pi's GPIO pins (gpiozero)."""

from __future__ import annotations

from console.runtime import Console
from console.sources import SourceSettings, Stop


def attach_buttons(console: Console, name: str, settings: SourceSettings) -> Stop | None:
    console.add_gpio(name, settings.pins, pull_up=settings.pull_up, pin_factory=settings.pin_factory)
    return None


def attach_encoder(console: Console, name: str, settings: SourceSettings) -> Stop | None:
    console.add_encoder(name, settings.pins, settings.counts_per_turn, pin_factory=settings.pin_factory)
    return None
