"""The console's own events, beside the referee's: a source's state and a problem report.

Contract: like the engines' events (console/engine/events.py), published through
`console.wire`; their JSON is documented in docs/mqtt.md (``source_status``, ``error``,
``resumed``, ``button_held``, ``console_held``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from console.engine.event_read import read_event
from console.engine.events import Event

__all__ = ["NOTICES", "ButtonHeld", "ConsoleError", "ConsoleHeld", "FightResumed", "JournalStatus",
           "ResumeOffered", "SourceStatus", "notice_from_json"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsoleError(Event):
    """A driver's, a host command's or the console's own problem; the game is not touched."""

    TYPE: ClassVar[str] = "error"
    NOTICE: ClassVar[bool] = True

    source: str  # the source of the problem: a source's name, "mqtt", "journal", ...
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceStatus(Event):
    """An input source connected, lost or gave up (``state``), with the driver's detail."""

    TYPE: ClassVar[str] = "source_status"
    NOTICE: ClassVar[bool] = True

    source: str
    state: str
    detail: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FightResumed(Event):
    """The console started again and resumed the fight from its journal (console/shell/resume.py):
    the same scores and state; `voided` names what the crash interrupted and was withdrawn
    ("question", "round", "count"), None if nothing was in play; `given_back`: the minuses
    taken on the voided question, given back by player; `torn`: the journal's last line was cut
    by a power cut and left out."""

    TYPE: ClassVar[str] = "resumed"
    NOTICE: ClassVar[bool] = True

    journal: str  # the journal's file name
    inputs: int  # how many inputs were replayed
    voided: str | None
    given_back: dict[str, int]
    torn: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ButtonHeld(Event):
    """A button down longer than [console] held_button_s (``state`` "held", said once), and
    its release after that (``state`` "released", once); the other buttons play on
    (console/shell/held_buttons.py)."""

    TYPE: ClassVar[str] = "button_held"
    NOTICE: ClassVar[bool] = True

    source: str  # the input source's name ([sources.NAME])
    pad: str  # the pad's name, as in [[players]] pad ("mcu:2")
    player: str | None  # the player at that pad, None if nobody is
    state: str  # "held" or "released"
    held_ms: int  # how long it has been down (at "released": in all)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsoleHeld(Event):
    """The console itself was held up (a stall of the Pi, a slow disk, a busy loop) past a
    decision it owed: `held_ms` late. It read what waited on its sources first and judged it
    by when it happened (console/shell/runtime.py), so nothing counts against a player."""

    TYPE: ClassVar[str] = "console_held"
    NOTICE: ClassVar[bool] = True

    held_ms: float  # how late the console came to the decision
    deadline_ns: int  # the decision's due time (host monotonic ns)


@dataclass(frozen=True, slots=True, kw_only=True)
class JournalStatus(Event):
    """The journal cannot be written (``state`` "failing": the disk is full, pulled or
    read-only; its lines wait in memory) or is written again ("writing": every waiting line
    reached it), with the detail (console/shell/journal.py)."""

    TYPE: ClassVar[str] = "journal_status"
    NOTICE: ClassVar[bool] = True

    state: str
    detail: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ResumeOffered(Event):
    """Today's journal `journal` was kept under another config (`differs`: the sections): it
    is offered to the host (``state`` "offered"), who resumes it with its own settings
    ("accepted": the console starts again for it) or starts afresh ("declined": it is kept
    aside; `implicit`: the host played on instead of choosing). console/shell/resume_offer.py."""

    TYPE: ClassVar[str] = "resume_offer"
    NOTICE: ClassVar[bool] = True

    state: str
    journal: str
    differs: tuple[str, ...]
    implicit: bool


NOTICES: tuple[type[Event], ...] = (ConsoleError, SourceStatus, FightResumed, ButtonHeld, ConsoleHeld,
                                    JournalStatus, ResumeOffered)
_BY_TYPE: dict[str, type[Event]] = {cls.TYPE: cls for cls in NOTICES}


def notice_from_json(obj: Mapping[str, object]) -> Event | None:
    """The notice a published object was written from, or None (see console/engine/event_read.py)."""
    return read_event(_BY_TYPE, {k: v for k, v in obj.items() if k != "seq"})
