"""The top's angle from a quadrature encoder with an index mark on the host's GPIO (gpiozero).

The second angle source beside the MCU's magnetic sensor: readings come out on the same
scale (``raw`` 0..4095 per turn, ``status`` bits as on the wire, ``at_ns`` host monotonic ns),
so the runtime turns either into ``console.engine.spin.AngleSample`` the same way.

Counting: gpiozero's :class:`~gpiozero.RotaryEncoder` decodes A/B; it counts one *step* per
full quadrature cycle (4 edges), so ``counts_per_rev`` is the encoder's cycles (lines, PPR)
per turn of the top, not its edges.  Its "clockwise" step (A leads B) counts up; which way
that is on the table is the calibration's business (``SectorMap.clockwise_increases``).

Index: the activating edge of the index line sets the count to ``index_angle_deg`` (on the
raw scale, in counting direction).  Before the first index the angle is relative to the
position at start and readings say so (``referenced`` False); the first index then makes
the angle jump once to the absolute one, which a consumer sees as a sudden small rotation.
Every later index checks the count: a difference of more than ``slip_tolerance`` counts
(missed or extra edges) is corrected and reported.  The index edge comes at one side of
the mark turning one way and at the other turning back, so expect ±1 count of hysteresis.

Timestamps: ``RotaryEncoder`` passes the pin factory's edge ticks to its private
``_change_state(ticks, edge)``; :class:`_Encoder` overrides it to keep them (as
``drivers.gpio_buttons`` does with ``_pin_changed``), so a reading is stamped with the
kernel time of the edge that completed the step under lgpio (see ``gpio_buttons`` for what
other factories stamp).  If a future gpiozero renames the hook, readings would stop: the
tests drive a real RotaryEncoder under MockFactory and would catch it.

An encoder sends nothing while the top is still, so every ``keepalive_s`` without a step
the current reading is repeated, stamped ``_KEEPALIVE_LAG_NS`` before now (edges older than
that have reached the loop) -- the spin detector's silence watchdog needs a pulse.

Threading: gpiozero calls back on its own thread; the callbacks queue (step, index) events
in a small mailbox -- consecutive steps collapse into the latest, so a fast top costs at
most one loop wake-up per loop iteration -- and the loop thread drains it in order.  All
counting state lives on the loop thread.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpiozero import RotaryEncoder

from drivers.gpio_buttons import GpioButtons, GpioError, _check_factory_clock, _PadInput, resolve_pin_factory
from firmware_proto import RAW_PER_TURN, AngleStatus

__all__ = ["EncoderAngle", "EncoderReading", "GpioEncoder"]

log = logging.getLogger(__name__)

# RAW_PER_TURN: the magnetic sensor's scale (the protocol's), shared by both angle sources.
STATUS_OK = int(AngleStatus.MAGNET_DETECTED)  # "the sensor is healthy"; an encoder has no field
_KEEPALIVE_LAG_NS = 10_000_000
# As in gpio_buttons: an edge stamped later than this after "now" was stamped on another clock.
_FUTURE_SLACK_NS = 1_000_000


@dataclass(frozen=True, slots=True)
class EncoderReading:
    """The top's angle from the encoder at ``at_ns`` (fields in AngleSample order first)."""

    at_ns: int  # host monotonic ns of the edge that completed the step (or a keepalive)
    raw: int  # angle on the 12-bit scale, 0..4095 per turn
    status: int  # always STATUS_OK (0x01)
    steps: int  # steps counted since start, signed, unbounded
    referenced: bool  # False before the first index: ``raw`` is relative to the start position


class EncoderAngle:
    """Step count + index -> angle; pure (no clock, no I/O), owned by one thread.

    ``counts_per_rev`` steps make a turn; the index mark stands for ``index_angle_deg``.
    """

    def __init__(self, counts_per_rev: int, *, index_angle_deg: float = 0.0, slip_tolerance: int = 2) -> None:
        if counts_per_rev < 4:
            raise ValueError(f"counts_per_rev must be at least 4, got {counts_per_rev}")
        if slip_tolerance < 0:
            raise ValueError(f"slip_tolerance must not be negative, got {slip_tolerance}")
        self.counts_per_rev = counts_per_rev
        self._index_count = round(index_angle_deg / 360.0 * counts_per_rev) % counts_per_rev
        self._slip_tolerance = slip_tolerance
        self._offset = 0  # added to steps to get the count within the turn
        self._steps = 0
        self.referenced = False

    def reading(self, steps: int, at_ns: int) -> EncoderReading:
        """The reading for ``steps`` counted at ``at_ns``."""
        self._steps = steps
        count = (steps + self._offset) % self.counts_per_rev
        raw = round(count * RAW_PER_TURN / self.counts_per_rev) % RAW_PER_TURN
        return EncoderReading(at_ns, raw, STATUS_OK, steps, self.referenced)

    def index(self, steps: int, at_ns: int) -> tuple[EncoderReading, int | None]:
        """The index mark passed at ``steps``: re-reference.  Returns the reading and, if the
        count had slipped by more than the tolerance since the last index, the slip in steps
        (signed: positive if the count was ahead)."""
        slip: int | None = None
        if self.referenced:
            count = (steps + self._offset) % self.counts_per_rev
            half = self.counts_per_rev // 2
            error = (count - self._index_count + half) % self.counts_per_rev - half
            if abs(error) > self._slip_tolerance:
                slip = error
        self._offset = (self._index_count - steps) % self.counts_per_rev
        self.referenced = True
        return self.reading(steps, at_ns), slip

    @property
    def steps(self) -> int:
        return self._steps


class _Encoder(RotaryEncoder):  # type: ignore[misc]  # gpiozero is untyped
    """A RotaryEncoder that forwards every completed step with the ticks of its edge."""

    def __init__(self, a: int, b: int, *, sink: Callable[[Any, int], None], pin_factory: Any) -> None:
        # Set before gpiozero hooks the pins (GPIOBase forbids new attributes afterwards).
        self._chgk_sink = sink
        # max_steps=0: count without limit (gpiozero would otherwise clamp at ±16).
        super().__init__(a, b, max_steps=0, bounce_time=None, pin_factory=pin_factory)

    def _change_state(self, ticks: Any, edge: int) -> None:
        before = self._steps
        super()._change_state(ticks, edge)
        if self._steps != before:
            self._chgk_sink(ticks, self._steps)


class GpioEncoder:
    """A quadrature encoder (pins ``pin_a``, ``pin_b``) with an optional index (``pin_index``)
    under the top; readings reach asyncio with their edge time.

    ``pin_factory`` as for :class:`drivers.gpio_buttons.GpioButtons` (``""`` gpiozero's
    choice, a name, or a Factory object).  A/B use the internal pull-ups (gpiozero's
    RotaryEncoder does); the index uses ``index_pull_up`` and is active low with it.
    ``keepalive_s`` None disables the keepalive.

    Callbacks run on the event loop thread, never on gpiozero's; an exception raised by one
    is logged.  ``on_reading(reading)``: every step (consecutive steps may collapse into the
    latest when the loop is busy), every index, every keepalive; ``at_ns`` never decreases.
    ``on_error(message)``: an English sentence per problem (slips, clock trouble); else logged.
    """

    def __init__(
        self,
        pin_a: int,
        pin_b: int,
        *,
        counts_per_rev: int,
        on_reading: Callable[[EncoderReading], None],
        pin_index: int | None = None,
        index_angle_deg: float = 0.0,
        index_pull_up: bool = True,
        slip_tolerance: int = 2,
        pin_factory: str | Any = "",
        keepalive_s: float | None = 0.1,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        if keepalive_s is not None and keepalive_s <= 0:
            raise ValueError(f"keepalive_s must be positive or None, got {keepalive_s}")
        self._pins = (pin_a, pin_b, pin_index)
        self._angle = EncoderAngle(
            counts_per_rev, index_angle_deg=index_angle_deg, slip_tolerance=slip_tolerance
        )
        self._on_reading = on_reading
        self._on_error = on_error
        self._index_pull_up = index_pull_up
        self._pin_factory = pin_factory
        self._keepalive_ns = None if keepalive_s is None else round(keepalive_s * 1e9)

        self._loop: asyncio.AbstractEventLoop | None = None
        self._session: object | None = None
        self._encoder: Any = None
        self._index: Any = None
        # Mailbox from gpiozero's thread: ("step" | "index", at_ns, steps, on_clock).
        self._mail: deque[tuple[str, int, int, bool]] = deque()
        self._mail_lock = threading.Lock()
        self._drain_scheduled = False
        self._keepalive: asyncio.TimerHandle | None = None
        self._last_at_ns: int | None = None
        self._clock_reported = False

    @property
    def referenced(self) -> bool:
        """True once the index has been seen (readings are absolute)."""
        return self._angle.referenced

    # -- life cycle ---------------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Claim the pins and start delivering readings on ``loop``.

        Raises :class:`~drivers.gpio_buttons.GpioError` (nothing claimed) for an unusable
        factory or pin, RuntimeError if already started.
        """
        if self._session is not None:
            raise RuntimeError("GpioEncoder already started")
        factory, name = resolve_pin_factory(self._pin_factory)
        _check_factory_clock(factory, name)
        session = object()
        pin_a, pin_b, pin_index = self._pins
        try:
            encoder = _Encoder(
                pin_a,
                pin_b,
                sink=lambda ticks, steps: self._post(session, "step", ticks, steps),
                pin_factory=factory,
            )
        except Exception as exc:
            raise GpioError(f"cannot claim GPIO pins {pin_a}/{pin_b} (encoder A/B) on {name}: {exc}") from exc
        index = None
        if pin_index is not None:
            try:
                index = _PadInput(
                    pin_index,
                    pull_up=self._index_pull_up,
                    pin_factory=factory,
                    sink=lambda ticks, state: self._index_edge(session, encoder, ticks, state),
                )
            except Exception as exc:
                _close(encoder)
                raise GpioError(
                    f"cannot claim GPIO pin {pin_index} (encoder index) on {name}: {exc}"
                ) from exc
        self._loop = loop
        self._session = session
        self._encoder = encoder
        self._index = index
        self._schedule_keepalive()

    def close(self) -> None:
        """Release the pins; readings not yet delivered are dropped.  Idempotent."""
        self._session = None
        if self._keepalive is not None:
            self._keepalive.cancel()
            self._keepalive = None
        for device in (self._index, self._encoder):
            if device is not None:
                _close(device)
        self._encoder = self._index = None
        with self._mail_lock:
            self._mail.clear()
            self._drain_scheduled = False
        self._loop = None

    # -- gpiozero's thread ------------------------------------------------------------------------

    def _index_edge(self, session: object, encoder: Any, ticks: Any, state: Any) -> None:
        if state in (0, 1) and bool(state) != self._index_pull_up:  # the activating edge
            self._post(session, "index", ticks, encoder._steps)

    def _post(self, session: object, kind: str, ticks: Any, steps: int) -> None:
        # Stamp and hand off, nothing else; never raise into gpiozero's thread.
        now_ns = time.monotonic_ns()
        try:
            try:
                at_ns: int | None = GpioButtons.ticks_to_ns(ticks)
            except (TypeError, ValueError, OverflowError):
                at_ns = None
            on_clock = at_ns is not None and at_ns <= now_ns + _FUTURE_SLACK_NS
            stamp = at_ns if on_clock and at_ns is not None else now_ns
            with self._mail_lock:
                if session is not self._session:
                    return
                mail = self._mail
                if kind == "step" and mail and mail[-1][0] == "step":
                    mail[-1] = (kind, stamp, steps, on_clock)  # only the latest count matters
                else:
                    mail.append((kind, stamp, steps, on_clock))
                if self._drain_scheduled:
                    return
                self._drain_scheduled = True
                loop = self._loop
            if loop is not None:
                loop.call_soon_threadsafe(self._drain, session)
        except RuntimeError:
            pass  # the loop is closed: shutting down
        except Exception:
            log.exception("GPIO encoder: edge lost")

    # -- the loop thread --------------------------------------------------------------------------

    def _drain(self, session: object) -> None:
        with self._mail_lock:
            if session is not self._session:
                return
            mail, self._mail = self._mail, deque()
            self._drain_scheduled = False
        for kind, at_ns, steps, on_clock in mail:
            if not on_clock and not self._clock_reported:
                self._clock_reported = True
                self._report("GPIO encoder: the pin factory stamped an edge in the future of time.monotonic; "
                             "readings are stamped on arrival instead")
            if kind == "index":
                reading, slip = self._angle.index(steps, at_ns)
                if slip is not None:
                    self._report(f"GPIO encoder: the count was off by {slip} step(s) at the index mark "
                                 f"(missed or extra edges); corrected")
            else:
                reading = self._angle.reading(steps, at_ns)
            self._emit(reading)
            if session is not self._session:
                return  # on_reading closed us

    def _schedule_keepalive(self) -> None:
        if self._keepalive_ns is None or self._loop is None:
            return
        self._keepalive = self._loop.call_later(self._keepalive_ns / 1e9, self._keepalive_due, self._session)

    def _keepalive_due(self, session: object) -> None:
        if session is not self._session or self._keepalive_ns is None:
            return
        self._drain(session)  # steps already in the mailbox come first
        if session is not self._session:
            return
        now_ns = time.monotonic_ns()
        last = self._last_at_ns
        if last is None or now_ns - last >= self._keepalive_ns:
            stamp = now_ns - _KEEPALIVE_LAG_NS if last is None else max(last, now_ns - _KEEPALIVE_LAG_NS)
            self._emit(self._angle.reading(self._angle.steps, stamp))
        self._schedule_keepalive()

    def _emit(self, reading: EncoderReading) -> None:
        if self._last_at_ns is not None and reading.at_ns < self._last_at_ns:
            # An edge that was in flight behind a keepalive: keep time order for the consumer.
            reading = EncoderReading(self._last_at_ns, reading.raw, reading.status, reading.steps,
                                     reading.referenced)
        self._last_at_ns = reading.at_ns
        try:
            self._on_reading(reading)
        except Exception:
            log.exception("GPIO encoder: callback %r failed", self._on_reading)

    def _report(self, message: str) -> None:
        if self._on_error is None:
            log.warning("%s", message)
            return
        try:
            self._on_error(message)
        except Exception:
            log.exception("GPIO encoder: callback %r failed", self._on_error)



def _close(device: Any) -> None:
    try:
        device.close()
    except Exception:
        log.exception("GPIO encoder: closing %r failed", device)
