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
:class:`gpiozero.DigitalInputDevice` whose ``_pin_changed(ticks, state)`` (the handler gpiozero
itself hooks to ``pin.when_changed``) is overridden to forward the raw edge.

Debounce: none in the kernel or in gpiozero (``bounce_time=None``).  The kernel's debounce is a
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
import functools
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from gpiozero import Device, DigitalInputDevice

__all__ = ["EdgeLockout", "GpioButtons", "GpioError", "GpioPress"]

log = logging.getLogger(__name__)

_NS_PER_S = 1_000_000_000
# A factory whose ticks() is further than this from time.monotonic() counts on another clock
# (pigpio: its daemon's 32-bit microsecond counter); its stamps cannot be compared with others.
_MAX_FACTORY_SKEW_S = 1.0
# An edge stamped later than "now" by more than this was stamped on another clock: kernels
# before 5.7 stamp GPIO events with CLOCK_REALTIME, decades "in the future" of CLOCK_MONOTONIC.
# Legitimate stamps are never in the future; the slack only absorbs float rounding.
_FUTURE_SLACK_NS = 1_000_000
# The timer that settles a pad after its lockout fires this much after the lockout ends, so
# that edges already on their way from the reader thread are processed first.  The settled
# edge is stamped with the end of the lockout whatever the timer's delay, so this costs only
# latency, and only in the rare case of a level change hidden inside a lockout.
_SETTLE_GRACE_NS = 5_000_000

# (pressed, at_ns) of one accepted edge.
Edge = tuple[bool, int]


class GpioError(Exception):
    """A pin factory or pin that cannot be used; the message names the factory or the pin."""


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


class _PadInput(DigitalInputDevice):  # type: ignore[misc]  # gpiozero is untyped
    """A gpiozero input that forwards every raw edge with the ticks the factory stamped it with."""

    def __init__(
        self, pin: int, *, pull_up: bool, sink: Callable[[Any, Any], None], pin_factory: Any
    ) -> None:
        # Set before gpiozero hooks the pin: an edge may arrive on the reader thread as soon as
        # it does (and GPIOBase forbids new attributes once construction is over).
        self._chgk_sink = sink
        # bounce_time=None also clears any kernel debounce left on the line by an earlier user.
        super().__init__(pin, pull_up=pull_up, bounce_time=None, pin_factory=pin_factory)

    def _pin_changed(self, ticks: Any, state: Any) -> None:
        # gpiozero's own version turns this into when_activated/when_deactivated and loses the
        # ticks; the pin holds only a weak reference to this bound method, the device is kept
        # alive by GpioButtons.
        self._chgk_sink(ticks, state)


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
        self._devices: list[Any] = []
        self._lockouts: list[EdgeLockout] = []
        self._settle_timers: list[asyncio.TimerHandle | None] = []
        self._clock_reported = False

    @property
    def pins(self) -> tuple[int, ...]:
        """The BCM pin of each pad."""
        return self._pins

    @staticmethod
    def ticks_to_ns(ticks: float) -> int:
        """Pin-factory ticks (float seconds of time.monotonic) -> int ns, to the nearest ns."""
        return round(float(ticks) * _NS_PER_S)

    # -- life cycle ---------------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Claim the pins and start delivering edges to ``on_edge`` on ``loop``.

        Raises :class:`GpioError` (with nothing claimed) for an unknown or unusable pin
        factory, a factory that does not keep time on the host monotonic clock, or a pin that
        cannot be claimed (invalid, or in use); RuntimeError if already started.
        """
        if self._session is not None:
            raise RuntimeError("GpioButtons already started")
        factory, factory_name = self._resolve_factory()
        _check_factory_clock(factory, factory_name)

        session = object()
        devices: list[Any] = []
        try:
            for pad, pin in enumerate(self._pins):
                sink = functools.partial(self._edge_from_thread, session, loop, pad)
                try:
                    devices.append(_PadInput(pin, pull_up=self._pull_up, sink=sink, pin_factory=factory))
                except Exception as exc:
                    raise GpioError(
                        f"cannot claim GPIO pin {pin} (pad {pad}) on pin factory {factory_name}: {exc}"
                    ) from exc
        except BaseException:
            for device in devices:
                _close_device(device)
            raise

        self._loop = loop
        self._session = session
        self._devices = devices
        # Read after the hook, so no level change goes unseen: an edge between the hook and this
        # read is already in the level read here (its handed-off copy then changes nothing; a
        # press in that instant counts as "pressed at start" and is reported as such).
        self._lockouts = [
            EdgeLockout(self._lockout_ns, pressed=self._is_pressed(device.pin.state)) for device in devices
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
            _close_device(device)
        self._devices = []
        self._lockouts = []
        self._settle_timers = []
        self._loop = None

    # -- the press path -----------------------------------------------------------------------

    def _edge_from_thread(self, session: object, loop: asyncio.AbstractEventLoop, pad: int,
                          ticks: Any, state: Any) -> None:
        # gpiozero's thread: stamp and hand off, nothing else.  Never raise here: an exception
        # would surface in lgpio's reader thread, which serves every pin.
        now_ns = time.monotonic_ns()
        try:
            if state not in (0, 1):
                return  # lgpio reports level 2 when a watchdog expires: no edge
            at_ns: int | None
            try:
                at_ns = self.ticks_to_ns(ticks)
            except (TypeError, ValueError, OverflowError):
                at_ns = None
            on_clock = at_ns is not None and at_ns <= now_ns + _FUTURE_SLACK_NS
            # Off the clock, the best stamp left is when the edge reached Python.
            stamp_ns = at_ns if on_clock and at_ns is not None else now_ns
            loop.call_soon_threadsafe(
                self._edge_on_loop, session, pad, self._is_pressed(state), stamp_ns, on_clock
            )
        except RuntimeError:
            pass  # the loop is closed: the daemon is going down and nobody referees any more
        except Exception:
            log.exception("GPIO pin %s: edge lost", self._pins[pad])

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

    def _is_pressed(self, state: Any) -> bool:
        # Pull-up: the button pulls the pin low.  Pull-down: it pulls the pin high.
        return bool(state) != self._pull_up

    def _resolve_factory(self) -> tuple[Any, str]:
        return resolve_pin_factory(self._pin_factory)

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


def _check_factory_clock(factory: Any, name: str) -> None:
    """Refuse a factory whose ticks are not time.monotonic seconds: its stamps could not be compared."""
    now = time.monotonic()
    try:
        ticks = float(factory.ticks())
    except Exception as exc:
        raise GpioError(f"pin factory {name} cannot tell the time: {exc}") from exc
    if not abs(ticks - now) <= _MAX_FACTORY_SKEW_S:  # `not <=` also refuses NaN
        raise GpioError(
            f"pin factory {name} keeps time on its own clock (ticks() = {ticks!r}, "
            f"time.monotonic() = {now:.3f}); presses must be stamped on the host monotonic "
            f"clock to be compared fairly: use lgpio"
        )


def _close_device(device: Any) -> None:
    try:
        device.close()
    except Exception:
        log.exception("GPIO buttons: closing %r failed", device)
