"""The top's angle from a quadrature encoder with an index mark on the host's GPIO (gpiozero).

The second angle source beside the MCU's magnetic sensor: readings come out on the same
scale (``raw`` 0..4095 per turn, ``status`` bits as on the wire, ``at_ns`` host monotonic ns),
so the runtime turns either into ``console.engine.spin.AngleSample`` the same way.

Counting: :class:`Quadrature` decodes A/B here (not gpiozero's RotaryEncoder, whose edge
times are reachable only through its private insides); it counts one *step* per full
quadrature cycle (4 edges), as RotaryEncoder does, so ``counts_per_rev`` is the encoder's
cycles (lines, PPR) per turn of the top, not its edges.  A leading B counts up (RotaryEncoder's
"clockwise"); which way that is on the table is the calibration's business
(``SectorMap.clockwise_increases``).  A line that reports the level it already had has lost
an edge in between; that is reported (at most once a second, with a count) and the index
check puts the count right.

Index: the activating edge of the index line sets the count to ``index_angle_deg`` (on the
raw scale, in counting direction).  Before the first index the angle is relative to the
position at start and readings say so (``referenced`` False); the first index then makes
the angle jump once to the absolute one, which a consumer sees as a sudden small rotation.
Every later index checks the count: a difference of more than ``slip_tolerance`` counts
(missed or extra edges) is corrected and reported.  The index edge comes at one side of
the mark turning one way and at the other turning back, so expect ±1 count of hysteresis.

Timestamps: each line is a :class:`drivers.gpio_pins.EdgeInput` (gpiozero's public pin-level
``when_changed(ticks, state)``), so a reading is stamped with the time of the edge that
completed the step: the kernel's under lgpio (see ``gpio_buttons`` for what other factories
stamp).

An encoder sends nothing while the top is still, so every ``keepalive_s`` without a step
the current reading is repeated, stamped ``_KEEPALIVE_LAG_NS`` before now (edges older than
that have reached the loop) -- the spin detector's silence watchdog needs a pulse.

Threading: gpiozero calls back on its own thread(s); under one lock the callbacks decode and
queue (step, index, lost-edge) events in a small mailbox -- consecutive steps collapse into
the latest, so a fast top costs at most one loop wake-up per loop iteration -- and the loop
thread drains it in order.  The angle state lives on the loop thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from drivers.gpio_pins import EdgeInput, GpioError, PinEdge, check_factory_clock, resolve_pin_factory
from firmware_proto import RAW_PER_TURN, AngleStatus

__all__ = ["EncoderAngle", "EncoderReading", "GpioEncoder", "Quadrature"]

log = logging.getLogger(__name__)

# RAW_PER_TURN: the magnetic sensor's scale (the protocol's), shared by both angle sources.
STATUS_OK = int(AngleStatus.MAGNET_DETECTED)  # "the sensor is healthy"; an encoder has no field
_KEEPALIVE_LAG_NS = 10_000_000
# Lost edges are reported at most this often (with the count since the last report): a
# bouncy or overdriven line would otherwise flood the operator.
_LOST_REPORT_NS = 1_000_000_000

MailKind = Literal["step", "index", "lost"]


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


class Quadrature:
    """A/B edges -> steps; pure (no clock, no I/O), fed in the order the edges happened.

    Lines are 0 (A) and 1 (B); a level is *active* (True) when the line is pulled to its
    active level (low, against the pull-ups).  The phase of (A, B) runs 0 (neither), 1 (A),
    2 (both), 3 (B): A leading B goes 0, 1, 2, 3, 0 and counts up.  Each edge moves a position
    by one; whenever the position is a multiple of 4 (both lines inactive: the end of a cycle)
    ``steps`` becomes position / 4.  So a step counts once its cycle is complete, in either
    direction, and a wiggle within a cycle counts nothing (as with gpiozero's RotaryEncoder).

    A line whose level is unknown (before :meth:`seed` or its first edge) moves nothing.  An
    edge to the level its line already has means at least one edge of that line was lost in
    between; which way the encoder went is unknown, so the position stays and the edge counts
    in ``lost``.
    """

    __slots__ = ("_levels", "_position", "lost", "steps")

    def __init__(self) -> None:
        self._levels: list[bool | None] = [None, None]
        self._position = 0
        self.steps = 0  # full cycles counted, signed, unbounded
        self.lost = 0  # edges that came to the level their line already had

    def seed(self, line: int, active: bool) -> None:
        """The level read from ``line`` after its hook: taken only if no edge has told it yet."""
        if self._levels[line] is None:
            self._levels[line] = active
            self._start()

    def edge(self, line: int, active: bool) -> Literal["step", "lost"] | None:
        """One edge of ``line`` to level ``active``: "step" if ``steps`` changed, "lost" if an
        edge of that line was lost before this one, else None."""
        before = self._phase()
        if self._levels[line] is None:
            self._levels[line] = active
            self._start()
            return None
        if self._levels[line] == active:
            self.lost += 1
            return "lost"
        self._levels[line] = active
        after = self._phase()
        if before is None or after is None:
            return None
        # One line changed, so the phase moved by one either way (Gray code).
        self._position += 1 if (after - before) % 4 == 1 else -1
        if self._position % 4 == 0 and self._position // 4 != self.steps:
            self.steps = self._position // 4
            return "step"
        return None

    def _start(self) -> None:
        # Both levels just became known: the position starts at their phase, within step 0.
        phase = self._phase()
        if phase is not None:
            self._position = phase

    def _phase(self) -> int | None:
        a, b = self._levels
        if a is None or b is None:
            return None
        return (0, 3, 1, 2)[a << 1 | b]


class GpioEncoder:
    """A quadrature encoder (pins ``pin_a``, ``pin_b``) with an optional index (``pin_index``)
    under the top; readings reach asyncio with their edge time.

    ``pin_factory`` as for :class:`drivers.gpio_buttons.GpioButtons` (``""`` gpiozero's
    choice, a name, or a Factory object).  A/B use the internal pull-ups and are active low
    (as gpiozero's RotaryEncoder has them); the index uses ``index_pull_up`` and is active low
    with it.  ``keepalive_s`` None disables the keepalive.

    Callbacks run on the event loop thread, never on gpiozero's; an exception raised by one
    is logged.  ``on_reading(reading)``: every step (consecutive steps may collapse into the
    latest when the loop is busy), every index, every keepalive; ``at_ns`` never decreases.
    ``on_error(message)``: an English sentence per problem (slips, lost edges, clock trouble);
    else logged.
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
        self._lines: list[EdgeInput] = []  # A, B
        self._index: EdgeInput | None = None
        # gpiozero's thread(s) decode and post under this lock.  Mailbox entries:
        # (kind, at_ns, steps -- or, for "lost", how many edges --, on_clock).
        self._lock = threading.Lock()
        self._mail: deque[tuple[MailKind, int, int, bool]] = deque()
        self._drain_scheduled = False
        self._keepalive: asyncio.TimerHandle | None = None
        self._last_at_ns: int | None = None
        self._clock_reported = False
        self._lost_unreported = 0
        self._lost_reported_ns: int | None = None
        self._lost_timer: asyncio.TimerHandle | None = None

    @property
    def referenced(self) -> bool:
        """True once the index has been seen (readings are absolute)."""
        return self._angle.referenced

    # -- life cycle ---------------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Claim the pins and start delivering readings on ``loop``.

        Raises :class:`~drivers.gpio_pins.GpioError` (nothing claimed) for an unusable
        factory or pin, RuntimeError if already started.
        """
        if self._session is not None:
            raise RuntimeError("GpioEncoder already started")
        factory, name = resolve_pin_factory(self._pin_factory)
        check_factory_clock(factory, name)
        session = object()
        decoder = Quadrature()  # one per session: a restart starts counting afresh from here
        pin_a, pin_b, pin_index = self._pins
        lines: list[EdgeInput] = []
        try:
            for line, pin in enumerate((pin_a, pin_b)):
                sink = functools.partial(self._line_edge, session, decoder, line)
                lines.append(EdgeInput(pin, pull_up=True, sink=sink, pin_factory=factory))
        except Exception as exc:
            for device in lines:
                device.close()
            raise GpioError(f"cannot claim GPIO pins {pin_a}/{pin_b} (encoder A/B) on {name}: {exc}") from exc
        index = None
        if pin_index is not None:
            try:
                index = EdgeInput(pin_index, pull_up=self._index_pull_up, pin_factory=factory,
                                  sink=functools.partial(self._index_edge, session, decoder))
            except Exception as exc:
                for device in lines:
                    device.close()
                raise GpioError(
                    f"cannot claim GPIO pin {pin_index} (encoder index) on {name}: {exc}"
                ) from exc
        self._loop = loop
        self._session = session
        self._lines = lines
        self._index = index
        # Read after the hooks, so no level change goes unseen: a line that has had an edge
        # since knows its level already and keeps it.
        levels = [not device.level for device in lines]  # active low
        with self._lock:
            for line, active in enumerate(levels):
                decoder.seed(line, active)
        self._schedule_keepalive()

    def close(self) -> None:
        """Release the pins; readings not yet delivered are dropped.  Idempotent."""
        self._session = None
        for timer in (self._keepalive, self._lost_timer):
            if timer is not None:
                timer.cancel()
        self._keepalive = self._lost_timer = None
        for device in (self._index, *self._lines):
            if device is not None:
                device.close()
        self._lines = []
        self._index = None
        with self._lock:
            self._mail.clear()
            self._drain_scheduled = False
        self._loop = None

    # -- gpiozero's thread(s) ---------------------------------------------------------------------

    def _line_edge(self, session: object, decoder: Quadrature, line: int, edge: PinEdge) -> None:
        with self._lock:
            outcome = decoder.edge(line, not edge.high)  # active low
            if outcome == "step":
                self._post_locked(session, "step", edge, decoder.steps)
            elif outcome == "lost":
                self._post_locked(session, "lost", edge, 1)

    def _index_edge(self, session: object, decoder: Quadrature, edge: PinEdge) -> None:
        if edge.high == self._index_pull_up:
            return  # the releasing edge
        with self._lock:
            self._post_locked(session, "index", edge, decoder.steps)

    def _post_locked(self, session: object, kind: MailKind, edge: PinEdge, value: int) -> None:
        # Hand off, nothing else (EdgeInput logs anything raised here).
        if session is not self._session:
            return
        mail = self._mail
        if mail and mail[-1][0] == kind == "step":
            mail[-1] = (kind, edge.at_ns, value, edge.on_clock)  # only the latest count matters
        elif mail and mail[-1][0] == kind == "lost":
            mail[-1] = (kind, edge.at_ns, mail[-1][2] + value, edge.on_clock)
        else:
            mail.append((kind, edge.at_ns, value, edge.on_clock))
        if self._drain_scheduled or self._loop is None:
            return
        self._drain_scheduled = True
        with contextlib.suppress(RuntimeError):  # the loop is closed: shutting down
            self._loop.call_soon_threadsafe(self._drain, session)

    # -- the loop thread --------------------------------------------------------------------------

    def _drain(self, session: object) -> None:
        with self._lock:
            if session is not self._session:
                return
            mail, self._mail = self._mail, deque()
            self._drain_scheduled = False
        for kind, at_ns, value, on_clock in mail:
            if not on_clock and not self._clock_reported:
                self._clock_reported = True
                self._report("GPIO encoder: the pin factory stamped an edge in the future of time.monotonic; "
                             "readings are stamped on arrival instead")
            if kind == "lost":
                self._lost_unreported += value
                self._report_lost(session)
                continue
            if kind == "index":
                reading, slip = self._angle.index(value, at_ns)
                if slip is not None:
                    self._report(f"GPIO encoder: the count was off by {slip} step(s) at the index mark "
                                 f"(missed or extra edges); corrected")
            else:
                reading = self._angle.reading(value, at_ns)
            self._emit(reading)
            if session is not self._session:
                return  # on_reading closed us

    def _report_lost(self, session: object) -> None:
        if session is not self._session or not self._lost_unreported or self._loop is None:
            return
        now_ns = time.monotonic_ns()
        last = self._lost_reported_ns
        if last is not None and now_ns - last < _LOST_REPORT_NS:
            if self._lost_timer is None:  # report the count once the second is over
                self._lost_timer = self._loop.call_later(
                    (last + _LOST_REPORT_NS - now_ns) / 1e9, self._lost_due, session)
            return
        count, self._lost_unreported = self._lost_unreported, 0
        self._lost_reported_ns = now_ns
        self._report(f"GPIO encoder: {count} edge(s) lost (a line changed to the level it already had: "
                     f"too fast for the pin factory, or bounce); the count may be off until the next index")

    def _lost_due(self, session: object) -> None:
        if session is self._session:
            self._lost_timer = None
            self._report_lost(session)

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
