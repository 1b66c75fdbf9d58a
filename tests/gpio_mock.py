"""Test helpers for the GPIO drivers on gpiozero's MockFactory, through its public API only.

A driver hooks each pin with the documented ``Pin.when_changed(ticks, state)`` handler;
:class:`EdgeSpy` takes the pin's place in front of that handler (reading and setting the same
property) to record the ticks of every edge the pin reports, or to change them, or to make
the pin report an edge it never drove (a factory losing an edge).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drivers.gpio_pins import ticks_to_ns


class EdgeSpy:
    """Stands between a (mock) pin and the handler a driver hooked to it.

    ``restamp(ticks)`` replaces the ticks handed on (another clock); ``ticks`` keeps the ticks
    the pin reported.  Install after the driver has hooked the pin; the pin holds only a weak
    reference to the spy, so keep the spy (tests keep it in a local or on their rig).
    """

    def __init__(self, pin: Any, *, restamp: Callable[[float], float] | None = None) -> None:
        handler = pin.when_changed
        assert handler is not None, f"nothing hooked to {pin!r}"
        self._handler: Callable[[Any, Any], None] = handler
        self._restamp = restamp
        self.pin = pin
        self.ticks: list[float] = []
        pin.when_changed = self

    def __call__(self, ticks: float, state: Any) -> None:
        self.ticks.append(ticks)
        self._handler(ticks if self._restamp is None else self._restamp(ticks), state)

    @property
    def last_ns(self) -> int:
        """The last edge's ticks, in ns."""
        return ticks_to_ns(self.ticks[-1])

    def report(self, ticks: float, state: int) -> None:
        """Hand the driver an edge as the factory would, whatever the pin's level."""
        self(ticks, state)
