"""Buttons (and the host's foot pedal) on the host's own GPIO pins, through gpiozero.

Fairness: a :class:`GpioPress` carries the time at which the pin *changed* (``at_ns``, host
``time.monotonic_ns``), never the time Python got around to it.  That time is the ``ticks``
gpiozero hands to the pin's ``when_changed`` handler:

* lgpio (the default on a Pi, the only factory that works on a Pi 5): the kernel's edge
  timestamp, on CLOCK_MONOTONIC since Linux 5.7, converted by gpiozero to seconds -- directly
  comparable with ``time.monotonic()``;
* MockFactory: ``time.monotonic()`` when the test drove the pin;
* rpigpio / native: ``time.monotonic()`` when the library's thread got round to the interrupt,
  with the level read afterwards.  Good enough for a pedal, not for racing buzzers;
* pigpio keeps time on its daemon's own microsecond counter and is refused by :meth:`start`.

gpiozero's ``Button.when_pressed`` drops the ticks, so each pin is a
:class:`drivers.gpio_pins.EdgeInput`: a plain gpiozero InputDevice whose pin's documented
``when_changed(ticks, state)`` handler forwards every raw edge with its stamp.

Debounce: none in the kernel or in gpiozero (``Pin.bounce`` None).  The kernel's debounce is a
trailing stable-time filter: it reports an edge only after the line has been quiet for the
filter period, so a bouncier switch would look later.  Instead every pad has a leading-edge
:class:`EdgeLockout`: the *first* edge counts with its own timestamp and the pad ignores
everything for ``lockout_ns`` after it.

Threading: gpiozero calls the handler on a foreign thread (lgpio's reader thread; the test's
own thread under MockFactory).  The handler only stamps and hands the edge to the event loop
with ``loop.call_soon_threadsafe``; all state lives on the loop thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from drivers.gpio_pins import (
    EdgeInput,
    GpioError,
    PinEdge,
    check_factory_clock,
    resolve_pin_factory,
    ticks_to_ns,
)

__all__ = ["EdgeLockout", "GpioButtons", "GpioError", "GpioPress", "resolve_pin_factory"]

log = logging.getLogger(__name__)

_NS_PER_S = 1_000_000_000
# The timer that settles a pad after its lockout fires this much after the lockout ends, so
# that edges already on their way from the reader thread are processed first.  The settled
# edge is stamped with the end of the lockout whatever the timer's delay, so this costs only
# latency, and only in the rare case of a level change hidden inside a lockout.
_SETTLE_GRACE_NS = 5_000_000

# (pressed, at_ns) of one accepted edge.
Edge = tuple[bool, int]


@dataclass(frozen=True, slots=True)
class GpioPress:
    """One accepted edge of one pad."""

    pad: int  # index into the ``pins`` given to GpioButtons
    at_ns: int  # host time.monotonic_ns of the edge, from the pin factory's ticks
    pressed: bool  # True: press, False: release


class EdgeLockout:
    """Leading-edge debounce of one pad; pure (no clock reads, no I/O).

    Contract, for edges fed in the order they happened:

    * an edge to the level the pad already has is ignored (a press needs a release first);
    * an edge less than ``lockout_ns`` after the last accepted edge is ignored (bounce);
    * any other edge is accepted with its own time: the first edge of a bouncing switch counts;
    * if the level seen last differs from the accepted one when the lockout ends (a tap
      shorter than the lockout: the release fell inside it), that level is accepted, stamped
      with the end of the lockout.  Without this the pad would stay "pressed" and swallow the
      player's next press.  :meth:`feed` does this itself for an edge that comes after the
      end; :meth:`settle` does it when no edge comes (``settle_at_ns`` says from when).

    Hence accepted edges alternate press/release and are at least ``lockout_ns`` apart.
    """

    __slots__ = ("_last_ns", "_lockout_ns", "_pressed", "_raw")

    def __init__(self, lockout_ns: int, *, pressed: bool = False) -> None:
        if lockout_ns < 0:
            raise ValueError(f"lockout_ns must be >= 0, got {lockout_ns}")
        self._lockout_ns = lockout_ns
        self._pressed = pressed  # the accepted level
        self._raw = pressed  # the level of the last edge fed
        self._last_ns: int | None = None  # time of the last accepted edge

    @property
    def pressed(self) -> bool:
        """The accepted level."""
        return self._pressed

    @property
    def settle_at_ns(self) -> int | None:
        """When :meth:`settle` will accept a pending level; None if nothing is pending."""
        if self._raw == self._pressed or self._last_ns is None:
            return None
        return self._last_ns + self._lockout_ns

    def feed(self, pressed: bool, at_ns: int) -> list[Edge]:
        """One raw edge; returns the accepted edges (none, one, or a settled one and this one)."""
        accepted: list[Edge] = []
        settled = self.settle(at_ns)
        if settled is not None:
            accepted.append(settled)
        self._raw = pressed
        if pressed != self._pressed and (self._last_ns is None or at_ns - self._last_ns >= self._lockout_ns):
            accepted.append(self._accept(pressed, at_ns))
        return accepted

    def settle(self, now_ns: int) -> Edge | None:
        """Accept the level seen last if it differs from the accepted one and the lockout is over."""
        due = self.settle_at_ns
        if due is None or now_ns < due:
            return None
        return self._accept(self._raw, due)

    def _accept(self, pressed: bool, at_ns: int) -> Edge:
        self._pressed = pressed
        self._last_ns = at_ns
        return pressed, at_ns


class GpioButtons:
    """Buttons on GPIO pins, each edge stamped where it happened; presses reach asyncio with their edge time.

    ``pins`` are BCM GPIO numbers; pad ``i`` is ``pins[i]``.  One pin is fine (the host's foot
    pedal).  With ``pull_up`` (the default) the buttons connect the pin to ground and the
    internal pull-up holds it high; without it they connect the pin to 3.3 V against the
    internal pull-down.

    ``pin_factory``: ``""`` is gpiozero's own choice (``GPIOZERO_PIN_FACTORY``, else lgpio on a
    Pi); a name (``"lgpio"``, ``"mock"``...) selects gpiozero's process-wide factory
    (``Device.pin_factory``): reused if it is of that kind, created and installed there if
    there is none yet (as ``GPIOZERO_PIN_FACTORY`` would do), :class:`GpioError` if the process
    already uses another kind; a Factory object is used as is.  Factories are never closed
    here: gpiozero's local factories share one table of pins, and closing one would close
    every pin of the process (gpiozero closes its factory at exit).

    Callbacks run on the event loop thread, never on gpiozero's thread.  An exception raised
    by a callback is logged and does not disturb the other pads.

    * ``on_edge(press)``: an accepted edge (see :class:`EdgeLockout`).  Per pad, edges come in
      time order; across pads ``at_ns``, not the order of the calls, says who was first.
    * ``on_error(message)``: one English sentence per problem the operator should see: a pad
      pressed at start (held, stuck or shorted: it counts only after a release), edges stamped
      on another clock (stamped on arrival instead; reported once).  Without it, logged.

    :meth:`start` and :meth:`close` are called on the loop thread (or before the loop runs).
    """

    def __init__(
        self,
        pins: Sequence[int],
        *,
        on_edge: Callable[[GpioPress], None],
        pull_up: bool = True,
        pin_factory: str | Any = "",
        lockout_ns: int = 30_000_000,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        if not pins:
            raise ValueError("GpioButtons needs at least one pin")
        if lockout_ns < 0:
            raise ValueError(f"lockout_ns must be >= 0, got {lockout_ns}")
        self._pins = tuple(pins)
        self._on_edge = on_edge
        self._pull_up = pull_up
        self._pin_factory = pin_factory
        self._lockout_ns = lockout_ns
        self._on_error = on_error

        self._loop: asyncio.AbstractEventLoop | None = None
        # A fresh token per start(): edges handed off by an earlier session are dropped.
        self._session: object | None = None
        self._devices: list[EdgeInput] = []
        self._lockouts: list[EdgeLockout] = []
        self._settle_timers: list[asyncio.TimerHandle | None] = []
        self._clock_reported = False

    @property
    def pins(self) -> tuple[int, ...]:
        """The BCM pin of each pad."""
        return self._pins

    def pressed_pads(self) -> tuple[int, ...]:
        """The pads whose accepted (debounced) state is pressed now: after :meth:`start`, those
        pressed at start among them; empty when not started."""
        return tuple(pad for pad, lockout in enumerate(self._lockouts) if lockout.pressed)

    @staticmethod
    def ticks_to_ns(ticks: float) -> int:
        """Pin-factory ticks (float seconds of time.monotonic) -> int ns, to the nearest ns."""
        return ticks_to_ns(ticks)

    # -- life cycle ---------------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Claim the pins and start delivering edges to ``on_edge`` on ``loop``.

        Raises :class:`GpioError` (with nothing claimed) for an unknown or unusable pin
        factory, a factory that does not keep time on the host monotonic clock, or a pin that
        cannot be claimed (invalid, or in use); RuntimeError if already started.
        """
        if self._session is not None:
            raise RuntimeError("GpioButtons already started")
        factory, factory_name = resolve_pin_factory(self._pin_factory)
        check_factory_clock(factory, factory_name)

        session = object()
        devices: list[EdgeInput] = []
        try:
            for pad, pin in enumerate(self._pins):
                sink = functools.partial(self._edge_from_thread, session, loop, pad)
                try:
                    devices.append(EdgeInput(pin, pull_up=self._pull_up, sink=sink, pin_factory=factory))
                except Exception as exc:
                    raise GpioError(
                        f"cannot claim GPIO pin {pin} (pad {pad}) on pin factory {factory_name}: {exc}"
                    ) from exc
        except BaseException:
            for device in devices:
                device.close()
            raise

        self._loop = loop
        self._session = session
        self._devices = devices
        # Read after the hook, so no level change goes unseen: an edge between the hook and this
        # read is already in the level read here (its handed-off copy then changes nothing; a
        # press in that instant counts as "pressed at start" and is reported as such).
        self._lockouts = [
            EdgeLockout(self._lockout_ns, pressed=self._is_pressed(device.level)) for device in devices
        ]
        self._settle_timers = [None] * len(devices)
        for pad, lockout in enumerate(self._lockouts):
            if lockout.pressed:
                loop.call_soon_threadsafe(
                    self._report_in_session,
                    session,
                    f"pad {pad} (GPIO pin {self._pins[pad]}) is pressed at start: held, stuck or "
                    f"shorted; it counts only after a release",
                )

    def close(self) -> None:
        """Release the pins; edges not yet delivered are dropped.  Idempotent."""
        self._session = None
        for timer in self._settle_timers:
            if timer is not None:
                timer.cancel()
        for device in self._devices:
            device.close()
        self._devices = []
        self._lockouts = []
        self._settle_timers = []
        self._loop = None

    # -- the press path -----------------------------------------------------------------------

    def _edge_from_thread(self, session: object, loop: asyncio.AbstractEventLoop, pad: int,
                          edge: PinEdge) -> None:
        # gpiozero's thread (EdgeInput has stamped the edge): hand off, nothing else.  A
        # RuntimeError says the loop is closed: the daemon is going down, nobody referees.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(
                self._edge_on_loop, session, pad, self._is_pressed(edge.high), edge.at_ns, edge.on_clock
            )

    def _edge_on_loop(self, session: object, pad: int, pressed: bool, at_ns: int, on_clock: bool) -> None:
        if session is not self._session:
            return  # closed (or restarted) since the edge was handed off
        if not on_clock and not self._clock_reported:
            self._clock_reported = True
            self._report(
                f"GPIO pin {self._pins[pad]}: the pin factory stamped an edge in the future of "
                f"time.monotonic (kernel older than 5.7 stamping on CLOCK_REALTIME?); edges are "
                f"stamped on arrival instead, which is not fair between pads"
            )
        for accepted_pressed, accepted_ns in self._lockouts[pad].feed(pressed, at_ns):
            self._emit(pad, accepted_pressed, accepted_ns)
            if session is not self._session:
                return  # on_edge closed us
        self._arm_settle(session, pad)

    def _arm_settle(self, session: object, pad: int) -> None:
        timer = self._settle_timers[pad]
        if timer is not None:
            timer.cancel()
            self._settle_timers[pad] = None
        due_ns = self._lockouts[pad].settle_at_ns
        if due_ns is None or self._loop is None:
            return
        delay_s = max(0, due_ns + _SETTLE_GRACE_NS - time.monotonic_ns()) / _NS_PER_S
        self._settle_timers[pad] = self._loop.call_later(delay_s, self._settle, session, pad)

    def _settle(self, session: object, pad: int) -> None:
        if session is not self._session:
            return
        self._settle_timers[pad] = None
        settled = self._lockouts[pad].settle(time.monotonic_ns())
        if settled is not None:
            self._emit(pad, *settled)
        if session is self._session:
            self._arm_settle(session, pad)  # still pending only if the timer fired early

    def _emit(self, pad: int, pressed: bool, at_ns: int) -> None:
        self._call(self._on_edge, GpioPress(pad=pad, at_ns=at_ns, pressed=pressed))

    # -- helpers ------------------------------------------------------------------------------

    def _is_pressed(self, high: bool) -> bool:
        # Pull-up: the button pulls the pin low.  Pull-down: it pulls the pin high.
        return high != self._pull_up

    def _report_in_session(self, session: object, message: str) -> None:
        if session is self._session:
            self._report(message)

    def _report(self, message: str) -> None:
        if self._on_error is None:
            log.warning("%s", message)
        else:
            self._call(self._on_error, message)

    def _call(self, fn: Callable[..., None], *args: object) -> None:
        # A failing consumer must not cost the other pads (or the next edges) their delivery.
        try:
            fn(*args)
        except Exception:
            log.exception("GPIO buttons: callback %r failed", fn)
