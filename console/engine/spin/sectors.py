"""The game table's sectors and the calibration of the top's angle sensor; pure.

The table has 12 sectors (seed 000, 3.8.1) or 13 (seed 003, 6.2), numbered 1..N clockwise
as the players see the table from above; the seeds do not say that sectors are equal, so
each may have its own width (``widths_deg``, summing to 360°).

Two angles are involved, and the names keep them apart:

* the *sensor* angle: ``raw`` readings of the 12-bit sensor, 0..4095 per turn
  (:data:`RAW_PER_TURN`); it counts in whichever direction the sensor is mounted;
* the *table* angle (``angle_deg``): degrees clockwise from the boundary before sector 1,
  0 <= angle < 360.  Every method of :class:`SectorMap` except :meth:`SectorMap.angle_deg`
  takes and returns table angles.

Calibration (what ``chgk-console calibrate`` will drive): the host points the arrow at the
boundary before sector 1 (readings -> ``zero_raw``), then turns it clockwise a little
(readings -> ``direction_samples``); :func:`calibrate` turns these into the zero offset and
the direction, kept in config (never burned into the sensor's OTP: the AS5600 allows only 3
burns).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

# The 12-bit sensor's scale (AS5600 class) is the protocol's: readings 0..RAW_PER_TURN - 1.
from firmware_proto import RAW_PER_TURN

__all__ = [
    "RAW_PER_TURN",
    "SECTOR_COUNTS",
    "Calibration",
    "CalibrationError",
    "SectorMap",
    "calibrate",
    "circular_mean_raw",
    "raw_to_deg",
]

SECTOR_COUNTS = (12, 13)  # seed 000, 3.8.1 (12 sectors); seed 003, 6.2 (13 sectors)
# Widths must add up to a full turn; the slack only absorbs decimal fractions in config.
_WIDTH_SUM_TOLERANCE_DEG = 1e-6
# A calibration turn shorter than this could be noise (±3 LSB is ±0.26°) or a wobble.
MIN_DIRECTION_TURN_DEG = 5.0
# Unwrapping readings that are more than half a turn apart cannot tell the direction.
_HALF_TURN = RAW_PER_TURN // 2


def raw_to_deg(raw: float) -> float:
    """Sensor counts (any real number) to sensor degrees in [0, 360)."""
    return _wrap(raw * 360.0 / RAW_PER_TURN, 360.0)


def _wrap(value: float, period: float) -> float:
    """``value`` modulo ``period`` in [0, period): float ``%`` gives ``period`` for -1e-17."""
    wrapped = value % period
    return 0.0 if wrapped >= period else wrapped


class CalibrationError(ValueError):
    """Calibration readings that cannot give an answer; the message says what to redo."""


@dataclass(frozen=True, slots=True)
class Calibration:
    """Where the sensor's zero is and which way it counts, as :func:`calibrate` found it."""

    zero_offset_deg: float  # sensor angle of the boundary before sector 1
    clockwise_increases: bool  # the raw reading grows when the arrow turns clockwise

    def apply(self, sectors: SectorMap) -> SectorMap:
        """``sectors`` with this calibration."""
        return replace(
            sectors, zero_offset_deg=self.zero_offset_deg, clockwise_increases=self.clockwise_increases
        )


@dataclass(frozen=True, slots=True)
class SectorMap:
    """The sectors of the table and the sensor's calibration.

    ``count``: 12 or 13.  ``widths_deg``: one width per sector, sector 1 first, clockwise,
    each > 0, summing to 360; None for equal sectors.  ``zero_offset_deg``: the sensor angle
    (``raw * 360 / 4096``) at which the arrow points at the boundary before sector 1.
    ``clockwise_increases``: True if the raw reading grows when the arrow turns clockwise
    as seen from above (the sensor usually looks up from under the table: check it).
    Invalid values raise ValueError.
    """

    count: int
    widths_deg: tuple[float, ...] | None = None
    zero_offset_deg: float = 0.0
    clockwise_increases: bool = True
    _starts: tuple[float, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.count, bool) or self.count not in SECTOR_COUNTS:
            raise ValueError(f"count must be 12 (seed 000, 3.8.1) or 13 (seed 003, 6.2), got {self.count!r}")
        if not math.isfinite(self.zero_offset_deg):
            raise ValueError(f"zero_offset_deg must be finite, got {self.zero_offset_deg!r}")
        if self.widths_deg is None:
            widths = (360.0 / self.count,) * self.count
        else:
            widths = tuple(float(w) for w in self.widths_deg)
            if len(widths) != self.count:
                raise ValueError(f"widths_deg has {len(widths)} entries for {self.count} sectors")
            if not all(math.isfinite(w) and w > 0.0 for w in widths):
                raise ValueError(f"every sector width must be a positive number of degrees, got {widths}")
            total = math.fsum(widths)
            if abs(total - 360.0) > _WIDTH_SUM_TOLERANCE_DEG:
                raise ValueError(f"sector widths must sum to 360°, they sum to {total:g}°")
            object.__setattr__(self, "widths_deg", widths)
        starts = [0.0]
        for width in widths[:-1]:
            starts.append(starts[-1] + width)
        object.__setattr__(self, "_starts", tuple(starts))

    # -- sensor -> table ----------------------------------------------------------------

    def angle_deg(self, raw: float) -> float:
        """The table angle (clockwise from the boundary before sector 1, [0, 360)) of a raw
        sensor reading; ``raw`` may be fractional (an average) and outside 0..4095."""
        sensor = raw * 360.0 / RAW_PER_TURN
        delta = sensor - self.zero_offset_deg if self.clockwise_increases else self.zero_offset_deg - sensor
        return _wrap(delta, 360.0)

    def raw_at(self, angle_deg: float) -> float:
        """The raw reading (in [0, 4096)) at which the arrow shows table angle ``angle_deg``."""
        sign = 1.0 if self.clockwise_increases else -1.0
        return _wrap((self.zero_offset_deg + sign * angle_deg) * RAW_PER_TURN / 360.0, RAW_PER_TURN)

    # -- sectors (table angles) ---------------------------------------------------------

    @property
    def widths(self) -> tuple[float, ...]:
        """Width of each sector in degrees, sector 1 first."""
        if self.widths_deg is None:
            return (360.0 / self.count,) * self.count
        return self.widths_deg

    @property
    def boundaries_deg(self) -> tuple[float, ...]:
        """Table angle at which each sector starts (sector 1 at 0.0), clockwise."""
        return self._starts

    @property
    def centres_deg(self) -> tuple[float, ...]:
        """Table angle of the middle of each sector, sector 1 first."""
        return tuple(start + width / 2.0 for start, width in zip(self._starts, self.widths, strict=True))

    def centre_deg(self, sector: int) -> float:
        """Table angle of the middle of ``sector`` (1-based)."""
        self._check_sector(sector)
        return self.centres_deg[sector - 1]

    def sector_at(self, angle_deg: float) -> int:
        """The sector (1-based, clockwise) the arrow points at; a boundary belongs to the
        sector that starts there."""
        return bisect.bisect_right(self._starts, _wrap(angle_deg, 360.0))

    def boundary_distance_deg(self, angle_deg: float) -> float:
        """Degrees (>= 0) from ``angle_deg`` to the nearest sector boundary, across 0/360 too."""
        angle = _wrap(angle_deg, 360.0)
        index = bisect.bisect_right(self._starts, angle)  # sector number; its start is index - 1
        before = angle - self._starts[index - 1]
        after = (self._starts[index] if index < self.count else 360.0) - angle
        return min(before, after)

    def near_boundary(self, angle_deg: float, margin_deg: float) -> bool:
        """True if the arrow is within ``margin_deg`` of a boundary: the host should confirm
        the sector (the seeds have no rule for an arrow on a boundary)."""
        if margin_deg < 0.0:
            raise ValueError(f"margin_deg must not be negative, got {margin_deg}")
        return self.boundary_distance_deg(angle_deg) <= margin_deg

    def next_clockwise(self, sector: int) -> int:
        """The sector after ``sector`` clockwise (seed 003, 6.1.1: a played sector passes the
        question to the next one clockwise)."""
        self._check_sector(sector)
        return sector % self.count + 1

    def _check_sector(self, sector: int) -> None:
        if isinstance(sector, bool) or not 1 <= sector <= self.count:
            raise ValueError(f"sector must be 1..{self.count}, got {sector!r}")


# -- calibration ------------------------------------------------------------------------------


def circular_mean_raw(readings: Sequence[int]) -> float:
    """The mean of raw readings on the circle (so 4095 and 1 average to 0), in [0, 4096).

    Raises CalibrationError for no readings or readings spread all round the circle.
    """
    if not readings:
        raise CalibrationError("no readings: is the sensor connected?")
    sin_sum = cos_sum = 0.0
    for raw in readings:
        _check_raw(raw)
        phase = 2.0 * math.pi * raw / RAW_PER_TURN
        sin_sum += math.sin(phase)
        cos_sum += math.cos(phase)
    # Readings of an arrow held still sit within a few counts; a resultant this short means
    # they point everywhere (the arrow moved, or the magnet is missing).
    if math.hypot(sin_sum, cos_sum) < 0.5 * len(readings):
        raise CalibrationError("the readings are spread round the circle: hold the arrow still and repeat")
    return _wrap(math.atan2(sin_sum, cos_sum) / (2.0 * math.pi) * RAW_PER_TURN, RAW_PER_TURN)


def calibrate(
    zero_raw: int | Sequence[int],
    direction_samples: Sequence[int],
    *,
    min_turn_deg: float = MIN_DIRECTION_TURN_DEG,
) -> Calibration:
    """Zero offset and direction from readings taken during the calibration ritual.

    ``zero_raw``: the reading (or readings, averaged on the circle) with the arrow on the
    boundary before sector 1.  ``direction_samples``: readings in time order while the host
    then turns the arrow clockwise a little; consecutive readings must be less than half a
    turn apart (any sensible polling rate does that), and the arrow must end at least
    ``min_turn_deg`` away from the zero, less than half a turn.

    Raises CalibrationError naming what to redo.
    """
    zero = circular_mean_raw([zero_raw] if isinstance(zero_raw, int) else list(zero_raw))
    if not direction_samples:
        raise CalibrationError("no readings while turning the arrow clockwise: repeat the turn")
    # Unwrap the turn from the zero: the net signed travel tells the direction.
    travel = 0.0
    previous = zero
    for raw in direction_samples:
        _check_raw(raw)
        step = (raw - previous + _HALF_TURN) % RAW_PER_TURN - _HALF_TURN
        travel += step
        previous = raw
    travel_deg = travel * 360.0 / RAW_PER_TURN
    if abs(travel_deg) < min_turn_deg:
        raise CalibrationError(
            f"the arrow moved only {abs(travel_deg):.1f}°: turn it clockwise by at least {min_turn_deg:g}°"
        )
    if abs(travel_deg) >= 180.0:
        raise CalibrationError(
            f"the arrow moved {abs(travel_deg):.0f}°: turn it clockwise by less than half a turn"
        )
    return Calibration(zero_offset_deg=raw_to_deg(zero), clockwise_increases=travel > 0)


def _check_raw(raw: int) -> None:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw < RAW_PER_TURN:
        raise ValueError(f"a raw reading must be an int 0..{RAW_PER_TURN - 1}, got {raw!r}")
