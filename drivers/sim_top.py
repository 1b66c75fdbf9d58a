"""A simulated top (волчок) on a simulated 12-bit magnetic angle sensor.

Physics of one spin (all angles are *table* angles: degrees clockwise as seen from above):

* spin-up: the hand accelerates the top evenly to ``omega0`` in ``spinup_s`` (50-150 ms);
* run-down: Coulomb (``c``) plus viscous (``k``) friction, dω/dt = -(c + k·ω), which brings
  it to a dead stop after exactly ``duration_s`` (3-10 s by default).  The viscous part is at
  most half the braking at full speed (``viscous_share``): the dry friction of the pivot
  dominates at low speed, so the top does not crawl for seconds before it stops;
* settle: at the stop the top rocks back and forth a little, a damped oscillation of
  0.1-0.35° (3-6 Hz, decay time 50-120 ms) around the resting angle.

The *true stop* (``SpinTruth.stopped_ns``) is the instant the run-down ends, and the true
resting angle is the angle there (the wobble is centred on it).

The sensor: ``raw = round(counts + noise) mod 4096`` with ``counts`` the sensor angle
(mounting offset and direction applied: it usually looks up from under the table) and
uniform noise of ±``noise_lsb`` LSB.  Faults make it report ``status`` flags (without
``MAGNET_DETECTED`` the reading is garbage); silences make it report nothing.

Two ways to use it, both on one timeline of integer ns:

* pure data: :meth:`SimTop.samples` yields ``(t_ns, raw, status)`` on a fixed grid
  (``rate_hz``, 1 kHz default) in virtual time: with a seed, the same calls give the same
  samples, spin parameters included;
* live: :class:`LiveTopFeed` samples it on ``time.monotonic_ns`` in a thread and streams
  ANGLE frames through :meth:`drivers.sim_mcu.SimulatedMcu.send_angle`.

Thread-safe: spins, nudges and faults may be scheduled while a feed reads.
"""

from __future__ import annotations

import bisect
import math
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from drivers.sim_mcu import SimulatedMcu
from firmware_proto import RAW_PER_TURN, AngleStatus

__all__ = ["LiveTopFeed", "SimTop", "SpinTruth"]

_NS_PER_S = 1_000_000_000
STATUS_OK = int(AngleStatus.MAGNET_DETECTED)
# Random spins: a hand gives a ЧГК top 2-5 turns per second.
_OMEGA0_DPS = (720.0, 1800.0)
_DURATION_S = (3.0, 10.0)
_VISCOUS_SHARE = (0.0, 0.5)
_SPINUP_S = (0.05, 0.15)
_WOBBLE_HZ = (3.0, 6.0)
_WOBBLE_DECAY_S = (0.05, 0.12)
# The wobble is treated as over (the top fully at rest) after this many decay times.
_WOBBLE_SPAN = 10.0


@dataclass(frozen=True, slots=True)
class SpinTruth:
    """What really happened in a simulated spin (for checking a detector against it)."""

    started_ns: int  # the hand starts the push
    stopped_ns: int  # the run-down ends: the true stop
    start_deg: float  # table angle before the spin, [0, 360)
    rest_deg: float  # table angle at rest, [0, 360)
    rest_raw: float  # the sensor's noiseless reading at rest, [0, 4096)
    rotation_deg: float  # signed (clockwise positive), spin-up and run-down
    omega0_dps: float
    duration_s: float  # of the run-down

    @property
    def turns(self) -> float:
        return abs(self.rotation_deg) / 360.0


class _Motion:
    """A displacement of the arrow starting at ``start_ns``; constant ``final`` after ``end_ns``."""

    __slots__ = ("end_ns", "final", "shape", "start_ns")

    def __init__(self, start_ns: int, end_ns: int, final: float, shape: Callable[[float], float]) -> None:
        self.start_ns = start_ns
        self.end_ns = end_ns
        self.final = final
        self.shape = shape  # seconds since start -> degrees moved

    def at(self, t_ns: int) -> float:
        if t_ns >= self.end_ns:
            return self.final
        return self.shape((t_ns - self.start_ns) / _NS_PER_S)


class SimTop:
    """A top on the table with an angle sensor under it; see the module docstring.

    ``seed`` makes spins and noise reproducible; ``start_deg`` is the table angle at time 0
    (random if None); ``sensor_offset_deg`` is the sensor angle when the arrow is at table
    angle 0 and ``clockwise_increases`` its direction (what calibration finds out).
    """

    def __init__(
        self,
        *,
        seed: int | None = None,
        rate_hz: float = 1000.0,
        noise_lsb: float = 3.0,
        start_deg: float | None = None,
        sensor_offset_deg: float = 0.0,
        clockwise_increases: bool = True,
        wobble_deg: tuple[float, float] = (0.1, 0.35),
    ) -> None:
        if rate_hz <= 0:
            raise ValueError(f"rate_hz must be positive, got {rate_hz}")
        self._rng = random.Random(seed)
        # Noise has its own stream, so the spins drawn do not depend on how much was sampled.
        self._noise = random.Random(None if seed is None else f"{seed}/noise")
        self.rate_hz = rate_hz
        self.period_ns = round(_NS_PER_S / rate_hz)
        self.noise_lsb = noise_lsb
        self.sensor_offset_deg = sensor_offset_deg
        self.clockwise_increases = clockwise_increases
        self.wobble_deg = wobble_deg
        self._start_deg = self._rng.uniform(0.0, 360.0) if start_deg is None else start_deg
        self._lock = threading.Lock()
        self._motions: list[_Motion] = []  # in start order, not overlapping
        self._motion_starts: list[int] = []
        self._faults: list[tuple[int, int, int]] = []  # (start, end, status)
        self._silences: list[tuple[int, int]] = []

    # -- scheduling ------------------------------------------------------------------------

    def spin(
        self,
        at_ns: int,
        *,
        omega0_dps: float | None = None,
        duration_s: float | None = None,
        direction: int = 1,
        viscous_share: float | None = None,
        spinup_s: float | None = None,
    ) -> SpinTruth:
        """Spin the top by hand at ``at_ns`` (clockwise: ``direction`` 1); parameters not
        given are drawn from the seeded generator.  Must start after earlier motions end."""
        rng = self._rng
        w0 = rng.uniform(*_OMEGA0_DPS) if omega0_dps is None else omega0_dps
        duration = rng.uniform(*_DURATION_S) if duration_s is None else duration_s
        share = rng.uniform(*_VISCOUS_SHARE) if viscous_share is None else viscous_share
        ramp = rng.uniform(*_SPINUP_S) if spinup_s is None else spinup_s
        amplitude = rng.uniform(*self.wobble_deg)
        wobble_hz = rng.uniform(*_WOBBLE_HZ)
        decay = rng.uniform(*_WOBBLE_DECAY_S)
        if w0 <= 0 or duration <= 0 or ramp <= 0 or not 0 <= share < 1 or direction not in (1, -1):
            raise ValueError("omega0_dps, duration_s and spinup_s must be positive, viscous_share in [0, 1), "
                             "direction ±1")

        if share > 0:
            # ω(u) = (w0 + c/k)·e^(-k·u) - c/k; k·w0 / (c + k·w0) = share and ω(duration) = 0.
            k = -math.log1p(-share) / duration
            c = k * w0 * (1.0 - share) / share

            def rundown(u: float) -> float:
                return (w0 + c / k) * -math.expm1(-k * u) / k - c / k * u
        else:
            c = w0 / duration

            def rundown(u: float) -> float:
                return w0 * u - c * u * u / 2.0

        spun_up = w0 * ramp / 2.0
        stopped_at = spun_up + rundown(duration)

        def shape(s: float) -> float:
            if s < ramp:
                return direction * w0 * s * s / (2.0 * ramp)
            u = s - ramp
            if u < duration:
                return direction * (spun_up + rundown(u))
            v = u - duration
            rock = amplitude * math.exp(-v / decay) * math.sin(2.0 * math.pi * wobble_hz * v)
            return direction * (stopped_at + rock)

        stop_ns = at_ns + round((ramp + duration) * _NS_PER_S)
        end_ns = stop_ns + round(_WOBBLE_SPAN * decay * _NS_PER_S)
        start = self.angle_deg(at_ns)
        rotation = direction * stopped_at
        self._add_motion(_Motion(at_ns, end_ns, rotation, shape))
        rest = start + rotation
        return SpinTruth(
            started_ns=at_ns,
            stopped_ns=stop_ns,
            start_deg=start % 360.0,
            rest_deg=rest % 360.0,
            rest_raw=self._counts(rest) % RAW_PER_TURN,
            rotation_deg=rotation,
            omega0_dps=w0,
            duration_s=duration,
        )

    def nudge(self, at_ns: int, delta_deg: float, duration_s: float = 0.15) -> int:
        """Push the arrow by ``delta_deg`` (clockwise positive) smoothly over ``duration_s``;
        returns when it is at rest again."""
        if duration_s <= 0:
            raise ValueError(f"duration_s must be positive, got {duration_s}")

        def shape(s: float) -> float:
            return delta_deg * (1.0 - math.cos(math.pi * s / duration_s)) / 2.0

        end_ns = at_ns + round(duration_s * _NS_PER_S)
        self._add_motion(_Motion(at_ns, end_ns, delta_deg, shape))
        return end_ns

    def fault(self, start_ns: int, end_ns: int, status: int = 0) -> None:
        """Report ``status`` (AngleStatus bits) from ``start_ns`` to ``end_ns``: 0 is "no
        magnet" (garbage readings), 0b011 too weak, 0b101 too strong (twice the noise)."""
        if status & ~0x07:
            raise ValueError(f"status uses bits 0..2 only, got {status:#x}")
        with self._lock:
            self._faults.append((start_ns, end_ns, status))

    def silence(self, start_ns: int, end_ns: int) -> None:
        """Send nothing from ``start_ns`` to ``end_ns`` (a dead sensor bus or link)."""
        with self._lock:
            self._silences.append((start_ns, end_ns))

    def settled_ns(self) -> int | None:
        """When the last scheduled motion is over (the arrow rests from then on), None if none."""
        with self._lock:
            return self._motions[-1].end_ns if self._motions else None

    def _add_motion(self, motion: _Motion) -> None:
        with self._lock:
            if self._motions and motion.start_ns < self._motions[-1].end_ns:
                raise ValueError("a motion must start after the previous one has settled")
            self._motions.append(motion)
            self._motion_starts.append(motion.start_ns)

    # -- truth -------------------------------------------------------------------------------

    def angle_deg(self, t_ns: int) -> float:
        """The true table angle at ``t_ns``, unwrapped (turns accumulate), no noise."""
        angle = self._start_deg
        with self._lock:
            for motion in self._motions[: bisect.bisect_right(self._motion_starts, t_ns)]:
                angle += motion.at(t_ns)
        return angle

    def _counts(self, table_deg: float) -> float:
        sign = 1.0 if self.clockwise_increases else -1.0
        return (self.sensor_offset_deg + sign * table_deg) * RAW_PER_TURN / 360.0

    # -- the sensor --------------------------------------------------------------------------

    def read(self, t_ns: int) -> tuple[int, int] | None:
        """One reading ``(raw, status)`` at ``t_ns``, or None during a silence."""
        with self._lock:
            if any(a <= t_ns < b for a, b in self._silences):
                return None
            status = STATUS_OK
            for a, b, fault_status in self._faults:
                if a <= t_ns < b:
                    status = fault_status
        if not status & STATUS_OK:
            return self._noise.randrange(RAW_PER_TURN), status  # no magnet: no angle
        noise = self.noise_lsb * (1.0 if status == STATUS_OK else 2.0)
        counts = self._counts(self.angle_deg(t_ns)) + self._noise.uniform(-noise, noise)
        return round(counts) % RAW_PER_TURN, status

    def samples(self, start_ns: int, end_ns: int) -> Iterator[tuple[int, int, int]]:
        """``(t_ns, raw, status)`` at every multiple of the sample period in [start, end)."""
        period = self.period_ns
        t = -(-start_ns // period) * period
        while t < end_ns:
            reading = self.read(t)
            if reading is not None:
                yield t, reading[0], reading[1]
            t += period


class LiveTopFeed:
    """Streams a :class:`SimTop` (its timeline = ``clock``, host monotonic ns by default)
    through a :class:`SimulatedMcu` as ANGLE frames at the top's ``rate_hz``, from a daemon
    thread.  ``sent`` lists ``(host ns read, raw, status)`` of every reading sent: the time
    the reading was taken, which its frame's MCU stamp carries (frames leave in bursts);
    ``read_ns`` the time of every reading taken, sent or not (the host may ask the box for
    fewer: ANGLE_RATE, PROTOCOL.md 4.12).

    When the thread falls behind (a loaded machine) it catches up by sending at once, each
    reading taken at the time it is sent; more than ``max_lag_s`` behind it skips ahead.
    """

    def __init__(
        self,
        top: SimTop,
        mcu: SimulatedMcu,
        *,
        clock: Callable[[], int] = time.monotonic_ns,
        max_lag_s: float = 0.05,
        burst_ms: float = 40.0,
    ) -> None:
        self._top = top
        self._mcu = mcu
        self._clock = clock
        self._max_lag_ns = round(max_lag_s * _NS_PER_S)
        # Readings go out in bursts, as ANGLES frames of readings each stamped when it was
        # read (PROTOCOL.md 4.11, 5.8): the host then wakes and decodes once a burst instead
        # of once a reading. 40 ms: how long the firmware gathers them (ANGLE_BATCH_US). 0: one
        # frame at a time.
        self._burst_ns = round(burst_ms * 1_000_000)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.sent: list[tuple[int, int, int]] = []
        self.read_ns: list[int] = []

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("LiveTopFeed already started")
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="sim-top", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop streaming (idempotent)."""
        thread, self._thread = self._thread, None
        if thread is not None:
            self._stop.set()
            thread.join(timeout=2.0)

    def spin_now(
        self,
        *,
        omega0_dps: float | None = None,
        duration_s: float | None = None,
        direction: int = 1,
    ) -> SpinTruth | None:
        """Spin the top by hand now (on the feed's clock), with :meth:`SimTop.spin`'s
        parameters (drawn from the top's generator when not given); None, and nothing
        scheduled, while an earlier motion is still going.

        The push starts one sample period from now: a reading already being taken is then
        never older than the motion it should have shown.
        """
        at = self._clock() + self._top.period_ns
        settled = self._top.settled_ns()
        if settled is not None and at < settled:
            return None
        return self._top.spin(at, omega0_dps=omega0_dps, duration_s=duration_s, direction=direction)

    def __enter__(self) -> LiveTopFeed:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _read(self, at: int) -> tuple[int, int] | None:
        reading = self._top.read(at)
        if reading is not None:
            self.read_ns.append(at)
        return reading

    def _run(self) -> None:
        period = self._top.period_ns
        due = self._clock()
        burst: list[tuple[int, int, int]] = []  # (raw, status, read at)
        burst_due = due + self._burst_ns
        while not self._stop.is_set():
            now = self._clock()
            if now < due:
                time.sleep((due - now) / _NS_PER_S)
                continue
            if now - due > self._max_lag_ns:
                due = now
            # Read and stamped in one step, sent with the burst or before any later frame
            # (PROTOCOL.md 5.2).
            reading = self._mcu.sample_angle(self._read)
            if reading is not None:
                burst.append(reading)
            if burst and now >= burst_due - period // 2:
                self._mcu.flush_angles()
                self.sent += [(read_at, raw, status) for raw, status, read_at in burst]
                burst = []
                burst_due = now + self._burst_ns
            due += period
        if burst:  # the readings taken since the last burst leave too, as the feed stops
            self._mcu.flush_angles()
            self.sent += [(read_at, raw, status) for raw, status, read_at in burst]
