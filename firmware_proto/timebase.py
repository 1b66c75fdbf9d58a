"""Unwrapping of the MCU's 32-bit microsecond timer into an unbounded count."""

from __future__ import annotations

__all__ = ["STAMP_MODULUS", "TimestampUnwrapper"]

# The MCU timer is a free-running u32 of microseconds: it wraps every 2**32 µs ≈ 71.6 min.
STAMP_MODULUS = 1 << 32
_HALF = STAMP_MODULUS // 2


class TimestampUnwrapper:
    """Turns a stream of wrapping u32 microsecond stamps into a non-decreasing-ish 64-bit count.

    Contract:

    * The first stamp (after construction or :meth:`reset`) is returned as is.
    * Each next stamp is placed at the value congruent to it modulo 2**32 that is closest to
      the previously returned value: the forward difference modulo 2**32 is read as a signed
      32-bit number.  Wrap-around forward therefore continues the count, and a slightly older
      stamp (e.g. a PRESS handled after a later-stamped HEARTBEAT) lands just before the
      previous value instead of ~71 minutes ahead.
    * This is exact as long as consecutive stamps are less than 2**31 µs (~35.8 min) apart;
      the device's HEARTBEAT (at least every 100 ms) guarantees that on a live link.
    * The result may be negative if the stream steps back from its first stamp across zero.
    * Call :meth:`reset` when the device restarts (a HELLO at power-up): its timer restarted
      too, and the new stamps are unrelated to the old ones.
    """

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: int | None = None

    @property
    def last(self) -> int | None:
        """The most recently returned value, or None before the first stamp."""
        return self._last

    def reset(self) -> None:
        """Forget the history: the next stamp is taken as is."""
        self._last = None

    def unwrap(self, stamp_us: int) -> int:
        """Return the unwrapped value of ``stamp_us`` (0 <= stamp_us < 2**32)."""
        if not 0 <= stamp_us < STAMP_MODULUS:
            raise ValueError(f"stamp_us must fit in 32 bits, got {stamp_us}")
        if self._last is None:
            value = stamp_us
        else:
            delta = (stamp_us - self._last) % STAMP_MODULUS
            if delta >= _HALF:
                delta -= STAMP_MODULUS
            value = self._last + delta
        self._last = value
        return value
