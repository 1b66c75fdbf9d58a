"""What the GPIO drivers (buttons, encoder) share: finding gpiozero's pin factory, checking its
clock, and one input pin whose every edge is stamped with the pin factory's own time.

Contract:

* :func:`resolve_pin_factory` turns the configured ``pin_factory`` (``""``, a name, or a
  Factory object) into the factory to use; :func:`check_factory_clock` refuses one whose
  ``ticks()`` are not ``time.monotonic`` seconds.  Both raise :class:`GpioError`.
* :class:`EdgeInput` claims one pin and calls ``sink(edge)`` with a :class:`PinEdge` for every
  level change, on gpiozero's thread.  ``PinEdge.at_ns`` is the time the factory stamped the
  edge with (lgpio: the kernel's), converted to host ``time.monotonic_ns``; a stamp that cannot
  be on that clock (in the future of "now") is replaced by the arrival time and flagged.

Only gpiozero's public, documented API is used.  Its device-level events
(``when_activated``...) drop the factory's ticks; the documented pin-level handler
``Pin.when_changed(ticks, state)`` keeps them.  So :class:`EdgeInput` claims the pin as a plain
:class:`gpiozero.InputDevice` (which reserves the pin against other devices and sets the
pull) and hooks ``device.pin`` itself through the documented ``Pin.bounce``, ``Pin.edges`` and
``Pin.when_changed`` properties -- as gpiozero's own RotaryEncoder does with its two
InputDevices.  ``InputDevice`` (unlike ``DigitalInputDevice``) hooks nothing itself, so the
handler is ours alone.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from gpiozero import Device, InputDevice

__all__ = [
    "EdgeInput",
    "GpioError",
    "PinEdge",
    "check_factory_clock",
    "resolve_pin_factory",
    "stamp_edge",
    "ticks_to_ns",
]

log = logging.getLogger(__name__)

NS_PER_S = 1_000_000_000
# A factory whose ticks() is further than this from time.monotonic() counts on another clock
# (pigpio: its daemon's 32-bit microsecond counter); its stamps cannot be compared with others.
MAX_FACTORY_SKEW_S = 1.0
# An edge stamped later than "now" by more than this was stamped on another clock: kernels
# before 5.7 stamp GPIO events with CLOCK_REALTIME, decades "in the future" of CLOCK_MONOTONIC.
# Legitimate stamps are never in the future; the slack only absorbs float rounding.
FUTURE_SLACK_NS = 1_000_000


class GpioError(Exception):
    """A pin factory or pin that cannot be used; the message names the factory or the pin."""


@dataclass(frozen=True, slots=True)
class PinEdge:
    """One level change of one pin."""

    at_ns: int  # host time.monotonic_ns of the edge (of its arrival if not on_clock)
    high: bool  # the pin's level after the edge
    on_clock: bool  # False: the factory's stamp was unusable, ``at_ns`` is the arrival time


def ticks_to_ns(ticks: float) -> int:
    """Pin-factory ticks (float seconds of time.monotonic) -> int ns, to the nearest ns."""
    return round(float(ticks) * NS_PER_S)


def stamp_edge(ticks: Any, now_ns: int) -> tuple[int, bool]:
    """(at_ns, on_clock) for an edge the factory stamped ``ticks`` that reached Python at
    ``now_ns``: the ticks in ns if they can be on the host monotonic clock, else ``now_ns``
    (the best stamp left) and False."""
    try:
        at_ns = ticks_to_ns(ticks)
    except (TypeError, ValueError, OverflowError):
        return now_ns, False
    if at_ns > now_ns + FUTURE_SLACK_NS:
        return now_ns, False
    return at_ns, True


class EdgeInput:
    """One GPIO input pin whose every edge reaches ``sink`` as a :class:`PinEdge`.

    ``pull_up`` as for gpiozero's InputDevice (True: internal pull-up, False: pull-down).  No
    debounce anywhere (``Pin.bounce`` None also clears a kernel debounce left on the line by an
    earlier user): the consumer decides what a bounce is.

    ``sink`` runs on gpiozero's thread (lgpio's reader thread; the caller's thread under
    MockFactory) and must only hand the edge off.  An exception it raises is logged, never
    passed to gpiozero's thread, which serves every pin.  lgpio's watchdog report (level 2)
    is no edge and is dropped.

    The pin holds only a weak reference to the handler (gpiozero's rule for ``when_changed``):
    the owner keeps this object alive for as long as it wants edges, and :meth:`close` s it.
    Raises whatever gpiozero raises for a pin that cannot be claimed (nothing stays claimed).
    """

    def __init__(self, pin: int, *, pull_up: bool, sink: Callable[[PinEdge], None], pin_factory: Any) -> None:
        self.number = pin
        # Set before the hook: an edge may arrive on the reader thread as soon as it is in place.
        self._sink = sink
        self._device: Any = InputDevice(pin, pull_up=pull_up, pin_factory=pin_factory)
        try:
            hooked = self._device.pin
            hooked.bounce = None
            hooked.edges = "both"
            hooked.when_changed = self._changed
        except BaseException:
            self._device.close()
            raise

    @property
    def level(self) -> bool:
        """The pin's level now (True: high), as read from the pin."""
        return bool(self._device.pin.state)

    def close(self) -> None:
        """Unhook and release the pin.  Idempotent; never raises (a failure is logged)."""
        try:
            pin = self._device.pin  # None once closed
            if pin is not None:
                pin.when_changed = None
            self._device.close()
        except Exception:
            log.exception("GPIO pin %s: closing failed", self.number)

    def _changed(self, ticks: Any, state: Any) -> None:
        now_ns = time.monotonic_ns()  # first: the arrival time is the fallback stamp
        if state not in (0, 1):
            return  # lgpio reports level 2 when a watchdog expires: no edge
        at_ns, on_clock = stamp_edge(ticks, now_ns)
        try:
            self._sink(PinEdge(at_ns, bool(state), on_clock))
        except Exception:
            log.exception("GPIO pin %s: edge lost", self.number)


def resolve_pin_factory(spec: str | Any) -> tuple[Any, str]:
    """The pin factory for `spec` and a name for messages: "" = gpiozero's own choice, a
    name = gpiozero's process-wide factory of that kind, an object = itself."""
    if not isinstance(spec, str):
        return spec, type(spec).__name__
    if not spec:
        try:
            Device.ensure_pin_factory()
        except Exception as exc:
            env = os.environ.get("GPIOZERO_PIN_FACTORY")
            raise GpioError(
                f"no gpiozero pin factory could be loaded (GPIOZERO_PIN_FACTORY={env!r}): {exc}"
            ) from exc
        return Device.pin_factory, type(Device.pin_factory).__name__
    factory_class = _factory_class(spec)
    current = Device.pin_factory
    if current is None:
        try:
            current = factory_class()
        except Exception as exc:
            raise GpioError(f"pin factory {spec!r} could not be started: {exc}") from exc
        Device.pin_factory = current
    elif not isinstance(current, factory_class):
        raise GpioError(
            f"pin factory {spec!r} was asked for, but this process already uses gpiozero's "
            f"{type(current).__name__}; all GPIO devices of a process share one pin factory"
        )
    return current, f"{spec!r}"


def _factory_class(name: str) -> Any:
    """The gpiozero pin factory class registered under ``name`` (as gpiozero looks it up)."""
    group = entry_points(group="gpiozero_pin_factories")
    # Verbatim first, then lower-cased: gpiozero's own rule for GPIOZERO_PIN_FACTORY.
    for wanted in (name, name.lower()):
        for entry in group:
            if entry.name == wanted:
                try:
                    return entry.load()
                except Exception as exc:
                    raise GpioError(f"pin factory {name!r} could not be loaded: {exc}") from exc
    known = ", ".join(sorted(entry.name for entry in group))
    raise GpioError(f"unknown pin factory {name!r}; gpiozero knows: {known}")


def check_factory_clock(factory: Any, name: str) -> None:
    """Refuse a factory whose ticks are not time.monotonic seconds: its stamps could not be compared."""
    now = time.monotonic()
    try:
        ticks = float(factory.ticks())
    except Exception as exc:
        raise GpioError(f"pin factory {name} cannot tell the time: {exc}") from exc
    if not abs(ticks - now) <= MAX_FACTORY_SKEW_S:  # `not <=` also refuses NaN
        raise GpioError(
            f"pin factory {name} keeps time on its own clock (ticks() = {ticks!r}, "
            f"time.monotonic() = {now:.3f}); edges must be stamped on the host monotonic "
            f"clock to be compared fairly: use lgpio"
        )
