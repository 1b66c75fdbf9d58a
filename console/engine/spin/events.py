"""What the top's watcher (`spin.py`) and the table (`table.py`) decide about the top: its events.

Contract: every event class here is a frozen event (see `console.engine.events`) whose fields
are declared in the order of the keys of its JSON in docs/mqtt-table.md, so `console.wire`
writes exactly the published objects, every field always (none is left out while None, as the
schema requires them all). `SpinStopped.sector` and `.near_boundary` are None (null) only from
a detector without a `SectorMap` (the tests): the table always has one, so what it publishes
always names the sector.

`SpinResult` is the record the detector keeps of the standing result (what
`SpinDetector.result` gives and the table's state shows); the detector never reads its events
back. `event_from_json` turns a published object back into its event, for the screens that
receive JSON and dispatch on classes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from console.engine.event_read import read_event
from console.engine.events import Event

__all__ = [
    "SPIN_EVENTS",
    "TOP_EVENTS",
    "Direction",
    "InvalidReason",
    "SectorUnsure",
    "SensorFault",
    "SensorFlag",
    "SensorOk",
    "SensorSilent",
    "SpinAngle",
    "SpinInvalid",
    "SpinNudged",
    "SpinResult",
    "SpinStarted",
    "SpinStopped",
    "event_from_json",
]


class Direction(StrEnum):
    """Which way the top turns, seen from above ("cw": raw increasing, without a SectorMap)."""

    CW = "cw"
    CCW = "ccw"


class InvalidReason(StrEnum):
    TOO_SHORT = "too_short"  # less than a full turn (spin.min_rotation_deg)


class SensorFlag(StrEnum):
    """A problem the sensor's status reports (`spin.fault_flags` gives them in this order)."""

    MAGNET_MISSING = "magnet_missing"
    MAGNET_TOO_WEAK = "magnet_too_weak"
    MAGNET_TOO_STRONG = "magnet_too_strong"


# ---------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True, kw_only=True)
class SpinResult:
    """The standing result of a spin: where the top came to rest (see `SpinStopped`)."""

    stopped_at_ns: int
    started_at_ns: int
    angle_deg: float
    raw: int
    turns: float
    direction: Direction
    degraded: bool
    sector: int | None = None  # None without a SectorMap
    near_boundary: bool | None = None


# ---------------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True, kw_only=True)
class SpinStarted(Event):
    """The top was spun: a full turn at speed; a standing result is superseded."""

    TYPE: ClassVar[str] = "spin_started"

    started_at_ns: int
    direction: Direction
    angle_deg: float
    raw: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SpinAngle(Event):
    """The arrow's live angle while the top spins (its own topic, at most spin.live_rate_hz, 20, a second)."""

    TYPE: ClassVar[str] = "spin_angle"
    LIVE: ClassVar[bool] = True  # up to 20 a second while the top spins: its own topic

    at_ns: int
    angle_deg: float
    raw: int
    turns: float  # signed, since the start
    speed_dps: float | None  # None until two samples give a speed


@dataclass(frozen=True, slots=True, kw_only=True)
class SpinStopped(Event):
    """The top came to rest after a spin: the result stands (`SpinResult` plus the latency)."""

    TYPE: ClassVar[str] = "spin_stopped"

    stopped_at_ns: int
    started_at_ns: int
    latency_ms: float
    angle_deg: float
    raw: int
    turns: float
    direction: Direction
    degraded: bool
    sector: int | None  # None from a detector without a SectorMap (never on the table)
    near_boundary: bool | None

    @classmethod
    def of(cls, result: SpinResult, *, t_ns: int, latency_ms: float) -> SpinStopped:
        return cls(t_ns=t_ns, stopped_at_ns=result.stopped_at_ns, started_at_ns=result.started_at_ns,
                   latency_ms=latency_ms, angle_deg=result.angle_deg, raw=result.raw,
                   turns=result.turns, direction=result.direction, degraded=result.degraded,
                   sector=result.sector, near_boundary=result.near_boundary)


@dataclass(frozen=True, slots=True, kw_only=True)
class SpinInvalid(Event):
    """A push that stopped short of a full turn: not a spin; the previous result is gone."""

    TYPE: ClassVar[str] = "spin_invalid"

    reason: InvalidReason
    stopped_at_ns: int
    angle_deg: float
    raw: int
    turns: float


@dataclass(frozen=True, slots=True, kw_only=True)
class SpinNudged(Event):
    """The arrow was moved after a stop; the result stands."""

    TYPE: ClassVar[str] = "spin_nudged"

    at_ns: int
    angle_deg: float
    raw: int
    moved_deg: float
    result_angle_deg: float


@dataclass(frozen=True, slots=True, kw_only=True)
class SensorFault(Event):
    """The angle sensor reports a problem (again whenever its status changes)."""

    TYPE: ClassVar[str] = "sensor_fault"

    at_ns: int
    status: int  # the status bits as on the wire (firmware_proto.AngleStatus)
    flags: tuple[SensorFlag, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class SensorOk(Event):
    """The sensor is healthy again after a fault or a silence."""

    TYPE: ClassVar[str] = "sensor_ok"

    at_ns: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SensorSilent(Event):
    """No sample for `spin.silence_ns`."""

    TYPE: ClassVar[str] = "sensor_silent"

    last_sample_ns: int | None  # None if none ever came (written as null)


@dataclass(frozen=True, slots=True, kw_only=True)
class SectorUnsure(Event):
    """The table's: the top stopped on a boundary, the host confirms the sector (`pick_sector`)."""

    TYPE: ClassVar[str] = "sector_unsure"

    angle_deg: float
    candidates: tuple[int, ...]  # the two sectors either side of the boundary, ascending
    message: str


SPIN_EVENTS: tuple[type[Event], ...] = (
    SpinStarted, SpinAngle, SpinStopped, SpinInvalid, SpinNudged, SensorFault, SensorOk, SensorSilent,
)
"""Every event the top's watcher (`SpinDetector`) decides."""

TOP_EVENTS: tuple[type[Event], ...] = (*SPIN_EVENTS, SectorUnsure)
"""Every event about the top on the table: the watcher's and the table's `SectorUnsure`."""

_BY_TYPE: dict[str, type[Event]] = {cls.TYPE: cls for cls in TOP_EVENTS}


def event_from_json(obj: Mapping[str, object]) -> Event | None:
    """The top's event that `obj` (a published object) was written from, or None (another
    engine's type, or an object that does not fit its class)."""
    return read_event(_BY_TYPE, obj)
