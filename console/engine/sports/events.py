"""What the sports «Что? Где? Когда?» timer decides (seed 003, 5.2-5.3): one record per event.

Contract: each class is one event type of docs/mqtt-table.md / schemas/table_event.schema.json;
its fields are declared in the order of the JSON keys after ``type`` and ``t_ns`` (see
`console.engine.events`). ``question`` counts every question started; ``tour``/``number``
place it in the 3 tours of 12 (both None for a shoot-out question, 003 5.5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from console.engine.events import Event


@dataclass(frozen=True, slots=True, kw_only=True)
class SportsTimerStarted(Event):
    """«Время!»: the minute runs from `started_at_ns` (003 5.3)."""

    TYPE: ClassVar[str] = "sports_timer_started"

    question: int
    tour: int | None
    number: int | None
    shootout: bool
    started_at_ns: int
    warning_ns: int
    deadline_ns: int
    collection_ends_ns: int
    seconds: float
    collection_seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class SportsTimerWarning(Event):
    """«Осталось 10 секунд»: 50 s of the minute have passed."""

    TYPE: ClassVar[str] = "sports_timer_warning"

    question: int
    deadline_ns: int
    seconds: float
    text: str
    remaining_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class SportsTimeUp(Event):
    """The minute is over: the teams hand in their answers until `collection_ends_ns`."""

    TYPE: ClassVar[str] = "sports_time_up"

    question: int
    deadline_ns: int
    seconds: float
    text: str
    collection_ends_ns: int
    collection_seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswersClosed(Event):
    """The collection of answers is closed."""

    TYPE: ClassVar[str] = "answers_closed"

    question: int
    collection_ends_ns: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SportsTimerCancelled(Event):
    """The host withdrew the running count; the replacement question takes its number."""

    TYPE: ClassVar[str] = "sports_timer_cancelled"

    question: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SportsTimerPaused(Event):
    """The host held the count at `paused_at_ns` (a dispute, a dropped sheet): `remaining_ms`
    of the minute (or of the collection) are kept."""

    TYPE: ClassVar[str] = "sports_timer_paused"

    question: int
    paused_at_ns: int
    remaining_ms: float


@dataclass(frozen=True, slots=True, kw_only=True)
class SportsTimerResumed(Event):
    """The held count goes on from `resumed_at_ns`; its whole schedule is `paused_ms` later."""

    TYPE: ClassVar[str] = "sports_timer_resumed"

    question: int
    resumed_at_ns: int
    paused_ms: float
    started_at_ns: int
    warning_ns: int
    deadline_ns: int
    collection_ends_ns: int
