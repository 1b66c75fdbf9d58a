"""Clock model: maps the MCU's unwrapped microsecond timer onto host monotonic nanoseconds.

Fairness depends on this mapping: who pressed first is decided on MCU timestamps translated
into host time, never on the order in which frames arrive.  The model is pure (no I/O, no
clock reads); the driver feeds it ping round trips:

* the host stamps ``host_send_ns`` right before writing a PING and ``host_recv_ns`` as soon
  as the matching PONG is read; the PONG carries the MCU time ``mcu_us`` at which it was
  answered.  Assuming a symmetric link, ``mcu_us`` happened at the midpoint of the round trip,
  with an error of at most half the round trip time (RTT).
* until ``min_fit_samples`` samples exist the mapping is a pure offset (MCU and host ticking
  at the nominal rate); afterwards it is a least-squares line ``host_ns = a * mcu_us + b``
  over the last ``window`` samples (weighted by round-trip time, see ``_fit``), which also
  absorbs the crystal drift (tens to hundreds of ppm, i.e. up to a millisecond every few
  seconds, far more than the RTT jitter).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

__all__ = ["ClockModel", "ClockSample"]

# Nominal rate: one MCU microsecond is 1000 host nanoseconds.
_NS_PER_US = 1000
# A fitted rate further than this from nominal is not a crystal's drift but a broken clock
# (or a timer restart the model did not notice); the model then falls back to offset mode.
_MAX_PLAUSIBLE_DRIFT = 0.01  # 1 % = 10 000 ppm; real crystals are within a few hundred ppm
# Half the 1 µs timer tick: the error floor of any sample, however short its round trip.
_QUANTISATION_NS = 500
# In offset mode, how many of the newest samples compete for "best" (smallest RTT).  Older
# samples are not used because drift makes them stale: 200 ppm is 0.2 ms per second.
_OFFSET_CANDIDATES = 3


@dataclass(frozen=True, slots=True)
class ClockSample:
    """One accepted round trip: the MCU time ``mcu_us`` happened at host time ``host_ns``."""

    mcu_us: int
    host_ns: int  # midpoint of the round trip
    rtt_ns: int


@dataclass(frozen=True, slots=True)
class _Line:
    """``host_ns = ref_host_ns + slope * (mcu_us - ref_mcu_us) + intercept`` (float parts small)."""

    ref_mcu_us: int
    ref_host_ns: int
    slope: float  # host ns per MCU µs
    intercept: float  # ns, relative to ref_host_ns

    def map(self, mcu_us: int) -> int:
        return self.ref_host_ns + round(self.slope * (mcu_us - self.ref_mcu_us) + self.intercept)


class ClockModel:
    """Maps the MCU's unwrapped microsecond timer onto host monotonic nanoseconds (offset and drift).

    Contract:

    * :meth:`add_sample` accepts a round trip unless its RTT is negative or above
      ``max_rtt_ns`` (a congested or stalled link says nothing precise about the clocks).
    * :meth:`to_host_ns` raises :class:`RuntimeError` until the model is :attr:`ready`.
      For a fixed set of samples the mapping is monotonic non-decreasing in ``mcu_us``.
    * The mapping's error is bounded by :attr:`uncertainty_ns` (half the smallest RTT in the
      window) plus the drift estimation error; with symmetric links it is typically much less.
    * If a sample's MCU time is earlier than the previous sample's, the MCU timer has been
      restarted (e.g. power cycle): the history is discarded and the model starts afresh.
    """

    def __init__(self, *, max_rtt_ns: int = 20_000_000, window: int = 100, min_fit_samples: int = 8) -> None:
        if window < 1:
            raise ValueError(f"window must be at least 1, got {window}")
        if min_fit_samples < 2:
            raise ValueError(f"min_fit_samples must be at least 2, got {min_fit_samples}")
        self._max_rtt_ns = max_rtt_ns
        self._min_fit_samples = min_fit_samples
        self._samples: deque[ClockSample] = deque(maxlen=window)
        self._line: _Line | None = None  # cached mapping, rebuilt on every accepted sample
        # Half the smallest RTT in the window, found once per sample (about one a second):
        # every press checks its stamp against it, and a scan of the window per press cost
        # the press path tens of µs.
        self._uncertainty_ns: int | None = None

    def reset(self) -> None:
        """Forget all samples (the MCU timer restarted, or a different device was plugged in)."""
        self._samples.clear()
        self._line = None
        self._uncertainty_ns = None

    def add_sample(self, host_send_ns: int, host_recv_ns: int, mcu_us: int) -> bool:
        """Record that ``mcu_us`` happened between ``host_send_ns`` and ``host_recv_ns``.

        Returns False (and changes nothing) if the round trip is negative or too long.
        """
        rtt = host_recv_ns - host_send_ns
        if rtt < 0 or rtt > self._max_rtt_ns:
            return False
        if self._samples and mcu_us < self._samples[-1].mcu_us:
            self.reset()
        self._samples.append(ClockSample(mcu_us, host_send_ns + rtt // 2, rtt))
        self._uncertainty_ns = min(s.rtt_ns for s in self._samples) // 2
        self._line = self._fit() if len(self._samples) >= self._min_fit_samples else None
        if self._line is None:
            self._line = self._offset_line()
        return True

    @property
    def max_rtt_ns(self) -> int:
        """Round trips longer than this are rejected by :meth:`add_sample`."""
        return self._max_rtt_ns

    @property
    def ready(self) -> bool:
        """True once at least one sample has been accepted."""
        return bool(self._samples)

    @property
    def sample_count(self) -> int:
        """Number of samples currently in the window."""
        return len(self._samples)

    def to_host_ns(self, mcu_us: int) -> int:
        """Host monotonic ns at which the MCU timer read ``mcu_us`` (unwrapped)."""
        if self._line is None:
            raise RuntimeError("clock model has no samples yet; cannot map MCU time")
        return self._line.map(mcu_us)

    @property
    def drift_ppm(self) -> float:
        """How fast the MCU timer runs relative to the host clock, in ppm (positive: MCU fast).

        0.0 until the model has enough samples to fit a line.
        """
        if self._line is None or self._line.slope == _NS_PER_US:
            return 0.0
        return (_NS_PER_US / self._line.slope - 1.0) * 1e6

    def error_bound_ns(self, mcu_us: int) -> int:
        """How far :meth:`to_host_ns` may be off at ``mcu_us`` on a sound clock: the offset
        bound (:attr:`uncertainty_ns`) plus the most drift a real crystal (or a simulator)
        can put between the nearest sample and ``mcu_us`` (1 %, the fit's own limit).  A
        stamp mapped further than this from where it must be shows a broken clock."""
        samples = self._samples
        if not samples:
            raise RuntimeError("clock model has no samples yet")
        since_us = min(abs(mcu_us - samples[-1].mcu_us), abs(mcu_us - samples[0].mcu_us))
        return self.uncertainty_ns + round(since_us * _NS_PER_US * _MAX_PLAUSIBLE_DRIFT)

    @property
    def uncertainty_ns(self) -> int:
        """Half the smallest RTT in the window: the bound on the mapping's offset error."""
        if self._uncertainty_ns is None:
            raise RuntimeError("clock model has no samples yet")
        return self._uncertainty_ns

    # -- fitting -------------------------------------------------------------------------

    def _offset_line(self) -> _Line:
        """Nominal rate, offset from the best (smallest RTT, then newest) recent sample."""
        recent = list(self._samples)[-_OFFSET_CANDIDATES:]
        best = min(reversed(recent), key=lambda s: s.rtt_ns)
        return _Line(best.mcu_us, best.host_ns, float(_NS_PER_US), 0.0)

    def _fit(self) -> _Line | None:
        """Weighted least-squares line through the window, or None if it is degenerate.

        A sample's error is bounded by half its RTT, so it is weighted by
        ``1 / (rtt/2 + 0.5 µs)**2``: a round trip stretched by a busy event loop or a slow USB
        frame hardly moves the line (the 0.5 µs is the timer's quantisation, the floor).

        Host times are ~1e15 ns and MCU times ~1e10 µs: squaring those in floats would lose
        everything, so coordinates are exact integers relative to the newest sample, and the
        sums are taken around the weighted means (two passes) to avoid cancellation.
        """
        ref = self._samples[-1]
        xs = [s.mcu_us - ref.mcu_us for s in self._samples]
        if min(xs) == max(xs):  # all samples at the same MCU time: no slope information
            return None
        ys = [s.host_ns - ref.host_ns for s in self._samples]
        ws = [1.0 / (s.rtt_ns / 2 + _QUANTISATION_NS) ** 2 for s in self._samples]
        total = sum(ws)
        mean_x = sum(w * x for w, x in zip(ws, xs, strict=True)) / total
        mean_y = sum(w * y for w, y in zip(ws, ys, strict=True)) / total
        sxx = sum(w * (x - mean_x) ** 2 for w, x in zip(ws, xs, strict=True))
        sxy = sum(w * (x - mean_x) * (y - mean_y) for w, x, y in zip(ws, xs, ys, strict=True))
        if sxx <= 0.0:
            return None
        slope = sxy / sxx
        if abs(slope / _NS_PER_US - 1.0) > _MAX_PLAUSIBLE_DRIFT:
            return None
        return _Line(ref.mcu_us, ref.host_ns, slope, mean_y - slope * mean_x)
