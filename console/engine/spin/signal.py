"""The top's signal: sensor samples, and the maths the spin detector runs on them.

Contract: an `AngleSample` (console/engine/model.py: an input like a press) is one sensor
reading; `fault_flags` names what a status reports. The rest is
exact arithmetic on unwrapped angles (a signed count of sensor steps, `COUNTS_PER_DEG` to a
degree), with no knowledge of spins:

* `Unwrapper` turns raw readings into that count (a step over half a turn is the short way
  round);
* `SlopeWindow` is the least-squares speed over a sliding time window, its integer sums kept
  relative to a recent origin so that they stay small and exact;
* `StillRun` is the longest recent run of samples all within a window of each other (peak to
  peak), and finds where in it the arrow came to rest (`came_to_rest`).

See console/engine/spin/detector.py for how the detector uses them and why the figures are what they are.
"""

from __future__ import annotations

from collections import deque

from console.engine.model import NS_PER_MS, NS_PER_S, STATUS_MAGNET_DETECTED
from console.engine.spin.events import SensorFlag
from firmware_proto import RAW_PER_TURN, AngleStatus

# Bits of the sensor status, as on the wire (AS5600 STATUS): the protocol owns them; plain ints
# here, the names the scenarios and the detector's callers use.
STATUS_MAGNET_TOO_WEAK = int(AngleStatus.MAGNET_TOO_WEAK)
STATUS_MAGNET_TOO_STRONG = int(AngleStatus.MAGNET_TOO_STRONG)

COUNTS_PER_DEG = RAW_PER_TURN / 360.0
_HALF_TURN = RAW_PER_TURN // 2
# Speed sums are kept relative to a recent origin so that the integers stay small.
_REBASE_NS = 1 << 30
# Finding when the top came to rest within the final still run (StillRun.came_to_rest): the
# angle averaged over 20 ms (noise ±3 LSB -> ±0.5 LSB) reaches the resting angle within half
# a count.  Tuned on the simulated top: stopped_at_ns within ~±50 ms of the true stop.
SMOOTH_NS = 20 * NS_PER_MS
REST_TOLERANCE_COUNTS = 0.5


def fault_flags(status: int) -> tuple[SensorFlag, ...]:
    """The problems a status reports (() for a healthy sensor), in a fixed order."""
    flags: list[SensorFlag] = []
    if not status & STATUS_MAGNET_DETECTED:
        flags.append(SensorFlag.MAGNET_MISSING)
    if status & STATUS_MAGNET_TOO_WEAK:
        flags.append(SensorFlag.MAGNET_TOO_WEAK)
    if status & STATUS_MAGNET_TOO_STRONG:
        flags.append(SensorFlag.MAGNET_TOO_STRONG)
    return tuple(flags)


class Unwrapper:
    """Raw readings (0..4095, wrapping) into a signed count of steps since the first one."""

    __slots__ = ("_raw", "theta")

    def __init__(self) -> None:
        self._raw: int | None = None  # last usable raw reading
        self.theta = 0  # unwrapped, sensor counts

    def add(self, raw: int) -> int:
        """The unwrapped angle of `raw`, read after the previous reading."""
        if self._raw is None:
            self.theta = raw
        else:
            self.theta += (raw - self._raw + _HALF_TURN) % RAW_PER_TURN - _HALF_TURN
        self._raw = raw
        return self.theta


class SlopeWindow:
    """The least-squares slope of angle over time for the samples of the last `window_ns`."""

    __slots__ = ("_sums", "_t0", "_theta0", "_win", "window_ns")

    def __init__(self, window_ns: int) -> None:
        self.window_ns = window_ns
        self._win: deque[tuple[int, int]] = deque()  # (t, theta) relative to (t0, theta0)
        self._t0 = 0
        self._theta0 = 0
        self._sums = (0, 0, 0, 0, 0)  # n, St, Sx, Stt, Stx

    def clear(self) -> None:
        """Forget the samples (after a gap they say nothing about the speed now)."""
        self._win.clear()  # the next `speed` rebases, which recomputes the sums

    def oldest_theta(self) -> int:
        """The unwrapped angle of the oldest sample in the window (the window is not empty)."""
        return self._win[0][1] + self._theta0

    def speed_dps(self, t: int, theta: int) -> float | None:
        """Add the sample `(t, theta)`; the slope in degrees per second, None with too few samples."""
        win = self._win
        if not win or t - self._t0 > _REBASE_NS:
            self._rebase(t, theta)
        # The sums in locals while they change (this runs for every sample the table keeps).
        n, st, sx, stt, stx = self._sums
        rt, rx = t - self._t0, theta - self._theta0
        oldest = rt - self.window_ns  # relative to t0, like the window's times
        while win and win[0][0] < oldest:
            old_t, old_x = win.popleft()
            n, st, sx, stt, stx = n - 1, st - old_t, sx - old_x, stt - old_t * old_t, stx - old_t * old_x
        win.append((rt, rx))
        n, st, sx, stt, stx = n + 1, st + rt, sx + rx, stt + rt * rt, stx + rt * rx
        self._sums = (n, st, sx, stt, stx)
        denominator = n * stt - st * st
        if n < 2 or denominator <= 0:
            return None
        counts_per_ns = (n * stx - st * sx) / denominator
        return counts_per_ns * NS_PER_S / COUNTS_PER_DEG

    def _rebase(self, t: int, theta: int) -> None:
        """Move the origin of the sums to ``(t, theta)`` and recompute them (exactly)."""
        absolute = [(rt + self._t0, rx + self._theta0) for rt, rx in self._win]
        self._t0, self._theta0 = t, theta
        self._win.clear()
        n = st = sx = stt = stx = 0
        for at, x in absolute:
            rt, rx = at - t, x - theta
            self._win.append((rt, rx))
            n, st, sx, stt, stx = n + 1, st + rt, sx + rx, stt + rt * rt, stx + rt * rx
        self._sums = (n, st, sx, stt, stx)


class StillRun:
    """The longest suffix of samples that are slow and within the window (see the module doc)."""

    __slots__ = ("_maxq", "_minq", "_seq", "_sum", "_window", "samples")

    def __init__(self, window_counts: float) -> None:
        self._window = window_counts
        self.samples: deque[tuple[int, int, int]] = deque()  # (seq, t, theta)
        self._minq: deque[tuple[int, int]] = deque()  # (seq, theta), increasing theta
        self._maxq: deque[tuple[int, int]] = deque()  # (seq, theta), decreasing theta
        self._sum = 0
        self._seq = 0
    def clear(self) -> None:
        if not self.samples:
            return  # (the usual case while the top spins: every sample clears the run)
        self.samples.clear()
        self._minq.clear()
        self._maxq.clear()
        self._sum = 0

    def add(self, t: int, theta: int) -> None:
        self._seq += 1
        seq = self._seq
        self.samples.append((seq, t, theta))
        self._sum += theta
        while self._minq and self._minq[-1][1] >= theta:
            self._minq.pop()
        self._minq.append((seq, theta))
        while self._maxq and self._maxq[-1][1] <= theta:
            self._maxq.pop()
        self._maxq.append((seq, theta))
        while self._maxq[0][1] - self._minq[0][1] > self._window:
            self._pop_front()

    def trim_before(self, t: int) -> None:
        """Forget samples stamped before ``t`` (bounds memory at rest; keeps the last one)."""
        while len(self.samples) > 1 and self.samples[0][1] < t:
            self._pop_front()

    def _pop_front(self) -> None:
        seq, _, theta = self.samples.popleft()
        self._sum -= theta
        if self._minq[0][0] == seq:
            self._minq.popleft()
        if self._maxq[0][0] == seq:
            self._maxq.popleft()

    @property
    def start_ns(self) -> int | None:
        return self.samples[0][1] if self.samples else None

    def came_to_rest(self, direction: int, smooth_ns: int, tolerance: float) -> tuple[int, float]:
        """When the arrow came to rest in this (non-empty) run, and its resting angle.

        The run starts while the top still crawls the last fraction of a degree, so neither
        its first sample nor its mean is the answer.  The resting angle is the mean of the
        run's second half; the arrow reached it when the average over ``smooth_ns`` (3
        samples at least) first came within ``tolerance`` of it from behind (``direction``
        of travel): the crawl approaches from behind, the wobble after the stop rocks around.
        """
        samples = [(t, x) for _, t, x in self.samples]
        first, last = samples[0][0], samples[-1][0]
        middle = first + (last - first) // 2
        tail = [x for t, x in samples if t >= middle]
        rest = sum(tail) / len(tail)
        n = len(samples)
        k = min(n, max(3, round(n * smooth_ns / max(1, last - first))))
        running = sum(x for _, x in samples[:k])
        for i in range(n - k + 1):
            if i:
                running += samples[i + k - 1][1] - samples[i - 1][1]
            if direction * (running / k - rest) >= -tolerance:
                return samples[i + k // 2][0] if i else first, rest
        return first, rest

    @property
    def mean(self) -> float:
        return self._sum / len(self.samples)
