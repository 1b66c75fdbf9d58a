"""The base of every event an engine decides, and the field markers the wire format reads.

Contract:

* An event is a frozen, slotted, keyword-only dataclass deriving from `Event`. Its class
  names its wire type (`TYPE`) and, for events meant for the host only, its audience
  (`AUDIENCE = "host"`). `t_ns` is when the engine decided it (host monotonic ns).
* Its class also says where the shell takes it, so that the shell never asks which game's
  event it is: `LIVE` (a live reading such as the top's angle: its own topic, no retained
  state after it, not a decision to sync the journal for), `RECORD` (a game's record:
  retained and kept on disk), `STARTS_GAME` (the records count a new game from it),
  `NOTICE` (the console's own notice to the host: kept for a screen that opens later).
* Its fields, in declaration order, are the keys of its JSON after ``type``, ``t_ns`` (and
  ``audience``); `console.wire` is the one place that turns an event into that JSON.
* A field declared with `omitted_if_none()` is left out of the JSON when it is None (a key
  that only some decisions carry, e.g. ``tied``); every other field is always written.
* Field values are JSON-shaped: numbers, strings, bools, None, enums with string values,
  tuples and mappings of those, and nested records (frozen dataclasses, written as objects).

The engine never reads an event back: what it needs later it keeps in its own state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

from console.engine.action_titles import TITLES
from console.engine.refusals import Reason

OMIT_IF_NONE = "omit_if_none"
T = TypeVar("T")


def omitted_if_none(default: T | None = None) -> T | None:
    """A field that defaults to None and is left out of the JSON while it is None (so it is
    always an optional one: ``tied: tuple[str, ...] | None = omitted_if_none()``)."""
    assert default is None  # a parameter only so that the field's declared type types the call
    return field(default=None, metadata={OMIT_IF_NONE: True})


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Something an engine decided at `t_ns`; subclasses name it on the wire with `TYPE`."""

    TYPE: ClassVar[str] = ""
    AUDIENCE: ClassVar[str | None] = None  # "host": published on the host topic only
    LIVE: ClassVar[bool] = False  # a live reading, not a decision (see the module docstring)
    RECORD: ClassVar[bool] = False  # a game's record
    STARTS_GAME: ClassVar[bool] = False  # a new game begins (its record is a new one)
    NOTICE: ClassVar[bool] = False  # the console's own notice to the host («Внимание»)
    CHANGES_PADS: ClassVar[bool] = False  # whose button a pad is changed (players from the tablet)

    t_ns: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandRefused(Event):
    """A host action the engine would not take now; `message` says why (nothing changed)."""

    TYPE: ClassVar[str] = "error"

    message: str
    details: dict[str, str | int | None] = field(default_factory=dict)


def refusal_message(action: str, reason: Reason, titles: Mapping[str, str] = TITLES) -> str:
    """The sentence a refused host action is shown with. The host reads it on the screen, so it
    is Russian, like `reason`'s text (console/engine/refusals.py: rules cite the seed's clause),
    and names the action as its button does (`titles`: console/engine/action_titles.py)."""
    return f"«{titles.get(action, action)}» сейчас нельзя: {reason.text}"


def refusal(now: int, action: str, reason: Reason, phase: str,
            titles: Mapping[str, str] = TITLES) -> CommandRefused:
    """The host's `action` refused in `phase` for `reason`; `details` carry the action and the
    reason's code (ids, for a program), the phase, and the reason's words."""
    return CommandRefused(t_ns=now, message=refusal_message(action, reason, titles),
                          details={"action": action, "phase": phase, "reason": reason.text,
                                   "code": reason.code.value})
