"""Thinning the top's angle stream to what the spin detector needs.

Contract: `AngleThinning(max_rate_hz).admit(at_ns, status)` is True for the samples to keep:
at most one per ``1 / max_rate_hz`` (0: every one), and always one whose sensor status
changed (a magnet fault must never be thinned away). An AS5600 read at 1 kHz is thinned to
250 Hz by default, which keeps the daemon's CPU low on a Pi (config: spin.max_rate_hz).
"""

from __future__ import annotations

__all__ = ["AngleThinning"]

SLACK_PARTS = 100  # 1 % of the interval: 40 µs at 250 Hz, far beyond any crystal's drift


class AngleThinning:
    """See the module docstring."""

    def __init__(self, max_rate_hz: float) -> None:
        interval_ns = int(1e9 / max_rate_hz) if max_rate_hz > 0 else 0
        # A source that thinned its readings already on its own clock (an MCU: its session)
        # hands them on an interval apart there, a hair less here when its crystal runs fast:
        # each of them passes.
        self._interval_ns = interval_ns - interval_ns // SLACK_PARTS
        self._next_ns = 0
        self._last_status = -1

    def admit(self, at_ns: int, status: int) -> bool:
        if at_ns < self._next_ns and status == self._last_status:
            return False
        self._next_ns = at_ns + self._interval_ns
        self._last_status = status
        return True
