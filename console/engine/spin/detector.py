"""The top (волчок) watcher: angle samples in, spin events out; a pure state machine.

Theory of operation (after the recommended design in the team notes, §3.4):

``rest`` --speed > ``start_speed_dps`` for ``start_samples`` samples--> ``moving``
``moving`` --rotation >= ``min_rotation_deg`` at speed--> ``spinning`` (``spin_started``)
``moving`` --still for ``hold_ns``--> ``rest``: ``spin_invalid`` if it turned at least
``attempt_min_deg`` (a spin too short to count), nothing otherwise (a touch of the arrow)
``spinning`` --still for ``hold_ns``--> ``rest`` (``spin_stopped``; the result stands)
``rest`` after a result --the arrow moves more than ``nudge_deg``--> ``spin_nudged`` (once per
disturbance; the result still stands: only a new ``spin_started`` supersedes it)

Signals.  Raw readings are unwrapped into a signed count of sensor steps (exact integers).
The speed is the least-squares slope over the last ``speed_window_ns`` of samples: ±3 LSB
of noise then costs ~2 °/s at 1 kHz and ~5 °/s at 100 Hz, far below the thresholds, and the
estimate lags by half the window.  "Still" is the longest recent run of samples each slower
than ``stop_speed_dps`` and all within ``still_window_deg`` of each other (peak to peak:
noise and the stopped top's wobble must fit).  Such a run begins while the top still crawls
its last fraction of a degree, so once it has lasted the hold time, the resting angle is
taken from its second half and the moment of rest (``stopped_at_ns``) is when the smoothed
angle reached it (see ``StillRun.came_to_rest``).  The maths is in ``spin_signal``; this
module is the state machine over it.

Timing.  The stop is declared as soon as a sample shows the run has lasted ``hold_ns``, or,
when samples stop coming (a source that sends only on change, a link that died),
``sample_grace_ns`` later by :meth:`SpinDetector.on_timer` -- :meth:`next_deadline` says
when.  The hold is counted from the start of the still run, which precedes the real stop,
so with the defaults the stop is reported 20-180 ms after the top really stopped (measured on
the simulated top at 100 Hz and 1 kHz; the budget is 300 ms).

Health.  A sample without ``MAGNET_DETECTED`` carries no angle and is ignored; ``too weak``
or ``too strong`` samples still carry one (less precise) and are used.  Any flag gives
``sensor_fault`` (again when the flags change), clean samples ``sensor_ok``; nothing
received for ``silence_ns`` gives ``sensor_silent``.  A spin that saw a fault or a silence
is reported with ``degraded: true``: across a gap the unwrapped turn count may be wrong,
the resting angle is not.

No I/O, no clock reads: ``handle(sample, now)``, ``on_timer(now)``, ``next_deadline()``;
the same inputs at the same ``now`` give the same events.  Times are host monotonic ns.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from console.engine.model import NS_PER_MS, NS_PER_S, STATUS_MAGNET_DETECTED, AngleSample, Output
from console.engine.spin.events import (
    Direction,
    InvalidReason,
    SensorFault,
    SensorOk,
    SensorSilent,
    SpinAngle,
    SpinInvalid,
    SpinNudged,
    SpinResult,
    SpinStarted,
    SpinStopped,
)
from console.engine.spin.sectors import SectorMap, raw_to_deg
from console.engine.spin.signal import (
    COUNTS_PER_DEG,
    REST_TOLERANCE_COUNTS,
    SMOOTH_NS,
    STATUS_MAGNET_TOO_STRONG,
    STATUS_MAGNET_TOO_WEAK,
    SlopeWindow,
    StillRun,
    Unwrapper,
    fault_flags,
)
from firmware_proto import RAW_PER_TURN

__all__ = [
    "STATUS_MAGNET_DETECTED",
    "STATUS_MAGNET_TOO_STRONG",
    "STATUS_MAGNET_TOO_WEAK",
    "AngleSample",
    "SpinConfig",
    "SpinDetector",
    "SpinPhase",
    "SpinStats",
    "fault_flags",
]

@dataclass(frozen=True, slots=True)
class SpinConfig:
    """Thresholds of the detector; the defaults suit a hand-spun top read at 100 Hz-1 kHz.

    The stop is reported at most ``hold_ns`` (+ ``sample_grace_ns`` if samples stop coming,
    + the speed lag, ~30 ms) after the top stops: keep that under 300 ms.
    """

    min_rotation_deg: float = 360.0  # a spin counts only after a full turn (notes §3.4)
    start_speed_dps: float = 90.0  # a nudge or a resting hand is slower or shorter than this...
    start_samples: int = 3  # ...for this many samples in a row
    attempt_min_deg: float = 90.0  # stopping short of a full turn: below this it was a touch
    stop_speed_dps: float = 30.0  # wobble of a stopped top peaks at ~10 °/s
    still_window_deg: float = 1.5  # peak to peak: ±3 LSB noise (0.5°) + ±0.35° wobble
    hold_ns: int = 200 * NS_PER_MS
    sample_grace_ns: int = 20 * NS_PER_MS  # how long on_timer waits for samples covering the hold
    speed_window_ns: int = 60 * NS_PER_MS
    live_rate_hz: float = 20.0  # spin_angle events per second at most
    nudge_deg: float = 3.0  # movement of the arrow after a result that counts as a nudge
    silence_ns: int | None = 500 * NS_PER_MS  # None: the source may be silent at rest
    boundary_margin_deg: float = 2.0  # spin_stopped.near_boundary (needs a SectorMap)

    def __post_init__(self) -> None:
        positive = {
            "min_rotation_deg": self.min_rotation_deg,
            "start_speed_dps": self.start_speed_dps,
            "stop_speed_dps": self.stop_speed_dps,
            "still_window_deg": self.still_window_deg,
            "hold_ns": self.hold_ns,
            "speed_window_ns": self.speed_window_ns,
            "live_rate_hz": self.live_rate_hz,
            "nudge_deg": self.nudge_deg,
            "start_samples": self.start_samples,
        }
        for name, value in positive.items():
            if not value > 0:
                raise ValueError(f"{name} must be positive, got {value!r}")
        if self.sample_grace_ns < 0 or self.boundary_margin_deg < 0 or self.attempt_min_deg < 0:
            raise ValueError("sample_grace_ns, boundary_margin_deg and attempt_min_deg must not be negative")
        if self.silence_ns is not None and self.silence_ns <= 0:
            raise ValueError(f"silence_ns must be positive or None, got {self.silence_ns}")
        if self.stop_speed_dps >= self.start_speed_dps:
            raise ValueError("stop_speed_dps must be below start_speed_dps")


class SpinPhase(StrEnum):
    REST = "rest"
    MOVING = "moving"  # faster than the start speed, not yet a full turn
    SPINNING = "spinning"


@dataclass(slots=True)
class SpinStats:
    """Counters since the detector was made (for diagnostics)."""

    samples: int = 0  # every sample handled
    out_of_order: int = 0  # stamped before the previous sample: ignored
    no_angle: int = 0  # magnet not detected: ignored


class SpinDetector:
    """Watches the top; see the module docstring for the contract.

    ``sectors`` (optional) calibrates angles: with it, ``angle_deg`` is the table angle
    (clockwise from the boundary before sector 1) and ``spin_stopped`` names the sector;
    without it ``angle_deg`` is the sensor angle ``raw * 360 / 4096``.  ``started_at_ns``
    starts the silence watchdog before the first sample (a sensor that never speaks is
    then reported); without it the watchdog starts with the first sample.

    Events (typed, from `console.engine.spin.events`; ``t_ns`` is the ``now`` of the call):

    * `SpinStarted`: ``started_at_ns`` (first sample over the start speed), ``direction``
      (cw/ccw as seen from above; cw means "raw increasing" without ``sectors``),
      ``angle_deg``, ``raw``.
    * `SpinAngle` (at most ``live_rate_hz`` per second while spinning): ``at_ns``,
      ``angle_deg``, ``raw``, ``turns`` (signed, since the start), ``speed_dps``.
    * `SpinStopped`: ``stopped_at_ns`` (when it came to rest, by the samples),
      ``started_at_ns``, ``latency_ms`` (``t_ns - stopped_at_ns``), ``angle_deg``, ``raw``
      (both of the mean resting angle), ``turns`` (unsigned), ``direction``, ``degraded``,
      ``sector`` and ``near_boundary`` (None without ``sectors``).
    * `SpinInvalid`: ``reason`` (too_short), ``stopped_at_ns``, ``angle_deg``, ``raw``,
      ``turns``.
    * `SpinNudged`: ``at_ns``, ``angle_deg`` (now), ``raw``, ``moved_deg`` (from the
      result's resting angle, unsigned), ``result_angle_deg``.
    * `SensorFault`: ``at_ns``, ``status``, ``flags`` (see :func:`fault_flags`).
    * `SensorOk`: ``at_ns``.
    * `SensorSilent`: ``last_sample_ns`` (None if none ever came).
    """

    def __init__(
        self,
        config: SpinConfig | None = None,
        *,
        sectors: SectorMap | None = None,
        started_at_ns: int | None = None,
    ) -> None:
        self.config = config or SpinConfig()
        self.sectors = sectors
        self.stats = SpinStats()
        cfg = self.config
        self._window_counts = cfg.still_window_deg * COUNTS_PER_DEG
        self._nudge_counts = cfg.nudge_deg * COUNTS_PER_DEG
        self._min_rotation_counts = cfg.min_rotation_deg * COUNTS_PER_DEG
        self._attempt_counts = cfg.attempt_min_deg * COUNTS_PER_DEG
        self._live_interval_ns = int(NS_PER_S / cfg.live_rate_hz)
        # Memory bound at rest: a still run longer than this is as good as any longer one.
        self._run_keep_ns = 2 * cfg.hold_ns + cfg.sample_grace_ns

        # health
        self._last_rx_ns: int | None = started_at_ns  # `now` of the last sample (any status)
        self._last_at_ns: int | None = None  # at_ns of the last accepted sample
        self._last_good_ns: int | None = None
        self._health = "ok"  # "ok" | "fault" | "silent"
        self._status = STATUS_MAGNET_DETECTED

        # signal: the unwrapped angle, its speed, the still run
        self._unwrap = Unwrapper()
        self._slope = SlopeWindow(cfg.speed_window_ns)
        self._speed_dps: float | None = None
        self._still = StillRun(self._window_counts)

        # phase
        self._phase = SpinPhase.REST
        self._fast = 0  # samples in a row over the start speed
        self._fast_since_ns = 0
        self._fast_origin = 0  # theta where the fast streak's window began
        self._origin = 0  # theta at the start of the movement
        self._started_at_ns = 0
        self._max_rotation = 0
        self._degraded = False
        self._last_live_ns: int | None = None
        self._timers_at: int | None = None  # the `now` the timers last fired at (`_timers`)
        # rest: the settled angle (None while disturbed or before the first settle)
        self._rest: float | None = None
        self._result: SpinResult | None = None
        self._result_theta = 0.0  # unwrapped resting angle of the result

    # ------------------------------------------------------------------ public API

    @property
    def phase(self) -> SpinPhase:
        return self._phase

    @property
    def health(self) -> str:
        """The sensor as last reported: "ok", "fault" (magnet flags) or "silent"."""
        return self._health

    @property
    def result(self) -> SpinResult | None:
        """The standing result, as `SpinStopped` reported it (None before one, after a new
        start or an invalid spin)."""
        return self._result

    @property
    def speed_dps(self) -> float | None:
        """The latest speed estimate (signed, sensor direction), None if unknown."""
        return self._speed_dps

    def handle(self, sample: AngleSample, now: int) -> list[Output]:
        """Take one sample that arrived at host time ``now``; due timers fire first."""
        out: list[Output] = []
        self._timers(now, out)
        self.stats.samples += 1
        self._last_rx_ns = now  # the sensor speaks, whatever it says
        if self._last_at_ns is not None and sample.at_ns < self._last_at_ns:
            self.stats.out_of_order += 1  # the unwrapping and the speed need samples in time order
            return out
        self._last_at_ns = sample.at_ns
        if sample.status != STATUS_MAGNET_DETECTED or self._health != "ok":  # (else nothing changes)
            self._check_health(sample, now, out)
        if not sample.status & STATUS_MAGNET_DETECTED:
            self.stats.no_angle += 1
            return out
        self._add(sample, now, out)
        return out

    def on_timer(self, now: int) -> list[Output]:
        """Fire what is due at ``now``: a stop the samples stopped short of, silence."""
        out: list[Output] = []
        self._timers(now, out)
        return out

    def next_deadline(self) -> int | None:
        """The host time at which :meth:`on_timer` must be called next, or None."""
        deadlines: list[int] = []
        cfg = self.config
        if cfg.silence_ns is not None and self._health != "silent" and self._last_rx_ns is not None:
            deadlines.append(self._last_rx_ns + cfg.silence_ns)
        run_start = self._still.start_ns
        if run_start is not None and (self._phase is not SpinPhase.REST or self._rest is None):
            deadlines.append(run_start + cfg.hold_ns + cfg.sample_grace_ns)
        return min(deadlines) if deadlines else None

    # ------------------------------------------------------------------ samples

    def _add(self, sample: AngleSample, now: int, out: list[Output]) -> None:
        t = sample.at_ns
        theta = self._unwrap.add(sample.raw)
        if self._last_good_ns is not None and t - self._last_good_ns > self.config.speed_window_ns:
            self._slope.clear()  # after a gap the old samples say nothing about the speed now
            if self._phase is not SpinPhase.REST:
                self._degraded = True
        self._last_good_ns = t
        speed = self._slope.speed_dps(t, theta)
        self._speed_dps = speed
        cfg = self.config
        if speed is not None and abs(speed) >= cfg.stop_speed_dps:
            self._still.clear()
        else:
            self._still.add(t, theta)
        if self._phase is SpinPhase.REST:
            self._still.trim_before(t - self._run_keep_ns)
        if sample.status != STATUS_MAGNET_DETECTED and self._phase is not SpinPhase.REST:
            self._degraded = True

        if speed is not None and abs(speed) > cfg.start_speed_dps:
            if self._fast == 0:
                self._fast_since_ns = t
                self._fast_origin = self._slope.oldest_theta()
            self._fast += 1
        else:
            self._fast = 0

        if self._phase is SpinPhase.REST:
            self._rest_sample(t, theta, now, out)
        elif self._phase is SpinPhase.MOVING:
            self._moving_sample(theta, speed, now, out)
        else:
            self._spinning_sample(t, theta, speed, now, out)
        if self._phase is not SpinPhase.REST or self._rest is None:
            self._check_still(now, out)

    def _rest_sample(self, t: int, theta: int, now: int, out: list[Output]) -> None:
        if self._fast >= self.config.start_samples:
            self._disturbed(t, theta, now, out)
            self._phase = SpinPhase.MOVING
            self._origin = self._fast_origin
            self._started_at_ns = self._fast_since_ns
            self._max_rotation = abs(theta - self._origin)
            self._degraded = self._health != "ok"
        elif self._rest is not None and abs(theta - self._rest) > self._nudge_counts:
            self._disturbed(t, theta, now, out)

    def _disturbed(self, t: int, theta: int, now: int, out: list[Output]) -> None:
        """The arrow left its resting place: a nudge, if a result stands and it was settled."""
        if self._rest is not None and self._result is not None:
            out.append(
                SpinNudged(
                    t_ns=now,
                    at_ns=t,
                    angle_deg=self._angle(theta),
                    raw=theta % RAW_PER_TURN,
                    moved_deg=round(abs(theta - self._result_theta) / COUNTS_PER_DEG, 2),
                    result_angle_deg=self._result.angle_deg,
                )
            )
        self._rest = None

    def _moving_sample(self, theta: int, speed: float | None, now: int, out: list[Output]) -> None:
        rotation = abs(theta - self._origin)
        self._max_rotation = max(self._max_rotation, rotation)
        fast = speed is not None and abs(speed) >= self.config.start_speed_dps
        if rotation >= self._min_rotation_counts and fast:
            self._phase = SpinPhase.SPINNING
            self._result = None  # a new spin supersedes the standing result
            self._last_live_ns = None
            out.append(
                SpinStarted(
                    t_ns=now,
                    started_at_ns=self._started_at_ns,
                    direction=self._direction(theta - self._origin),
                    angle_deg=self._angle(self._origin),
                    raw=self._origin % RAW_PER_TURN,
                )
            )

    def _spinning_sample(self, t: int, theta: int, speed: float | None, now: int, out: list[Output]) -> None:
        last = self._last_live_ns
        if last is not None and now - last < self._live_interval_ns:
            return  # the displays cannot use more; dropping keeps MQTT quiet
        self._last_live_ns = now
        out.append(
            SpinAngle(
                t_ns=now,
                at_ns=t,
                angle_deg=self._angle(theta),
                raw=theta % RAW_PER_TURN,
                turns=round((theta - self._origin) / RAW_PER_TURN, 3),
                speed_dps=None if speed is None else round(self._table_sign() * speed, 1),
            )
        )

    # ------------------------------------------------------------------ stillness

    def _timers(self, now: int, out: list[Output]) -> None:
        if now == self._timers_at:
            # Fired at this `now` already; a sample taken since (a burst comes in one call per
            # sample, all at one `now`) checked its still run itself, and made nothing silent.
            return
        self._timers_at = now
        cfg = self.config
        if self._phase is not SpinPhase.REST or self._rest is None:
            self._check_still(now, out)
        if (
            cfg.silence_ns is not None
            and self._health != "silent"
            and self._last_rx_ns is not None
            and now >= self._last_rx_ns + cfg.silence_ns
        ):
            self._health = "silent"
            if self._phase is not SpinPhase.REST:
                self._degraded = True
            out.append(SensorSilent(t_ns=now, last_sample_ns=self._last_at_ns))

    def _check_still(self, now: int, out: list[Output]) -> None:
        """Act on a still run that has lasted the hold time, by the samples or by the clock."""
        start = self._still.start_ns
        last = self._last_good_ns
        if start is None or last is None:
            return
        due = start + self.config.hold_ns
        if last < due and now < due + self.config.sample_grace_ns:
            return
        theta = self._still.mean
        if self._phase is not SpinPhase.REST:
            direction = 1 if theta >= self._origin else -1
            start, theta = self._still.came_to_rest(direction, SMOOTH_NS, REST_TOLERANCE_COUNTS)
        if self._phase is SpinPhase.SPINNING:
            self._stopped(start, theta, now, out)
        elif self._phase is SpinPhase.MOVING and self._max_rotation >= self._attempt_counts:
            self._result = None
            out.append(
                SpinInvalid(
                    t_ns=now,
                    reason=InvalidReason.TOO_SHORT,
                    stopped_at_ns=start,
                    angle_deg=self._angle(theta),
                    raw=round(theta) % RAW_PER_TURN,
                    turns=round(abs(theta - self._origin) / RAW_PER_TURN, 3),
                )
            )
        # Otherwise a touch of the arrow (or the first settle): a standing result stays.
        self._phase = SpinPhase.REST
        self._rest = theta
        self._fast = 0

    def _stopped(self, start: int, theta: float, now: int, out: list[Output]) -> None:
        cfg = self.config
        angle = self._angle(theta)
        sectors = self.sectors
        result = SpinResult(
            stopped_at_ns=start,
            started_at_ns=self._started_at_ns,
            angle_deg=angle,
            raw=round(theta) % RAW_PER_TURN,
            turns=round(abs(theta - self._origin) / RAW_PER_TURN, 3),
            direction=self._direction(theta - self._origin),
            degraded=self._degraded,
            sector=None if sectors is None else sectors.sector_at(angle),
            near_boundary=None if sectors is None else sectors.near_boundary(angle, cfg.boundary_margin_deg),
        )
        out.append(SpinStopped.of(result, t_ns=now, latency_ms=round((now - start) / NS_PER_MS, 3)))
        self._result = result
        self._result_theta = theta

    # ------------------------------------------------------------------ health

    def _check_health(self, sample: AngleSample, now: int, out: list[Output]) -> None:
        status = sample.status
        if status == STATUS_MAGNET_DETECTED:
            if self._health != "ok":
                out.append(SensorOk(t_ns=now, at_ns=sample.at_ns))
        elif self._health != "fault" or status != self._status:
            out.append(SensorFault(t_ns=now, at_ns=sample.at_ns, status=status, flags=fault_flags(status)))
        self._health = "ok" if status == STATUS_MAGNET_DETECTED else "fault"
        self._status = status

    # ------------------------------------------------------------------ angles

    def _angle(self, theta: float) -> float:
        if self.sectors is not None:
            return round(self.sectors.angle_deg(theta), 3)
        return round(raw_to_deg(theta), 3)

    def _table_sign(self) -> int:
        return 1 if self.sectors is None or self.sectors.clockwise_increases else -1

    def _direction(self, delta: float) -> Direction:
        return Direction.CW if delta * self._table_sign() >= 0 else Direction.CCW
