"""What the «Брейн-ринг» referee decides: one frozen record per event (../shared/RULES.md §5).

Contract: each class is one event type of docs/mqtt-brainring.md /
schemas/brainring_event.schema.json; its fields are declared in the order of the JSON keys
after ``type`` and ``t_ns`` (see `console.engine.events`). ``question`` counts the fight's
questions from 1 (a withdrawn one is played again under its number); ``stake`` is what a
correct answer to it is worth. Teams are named by their ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass
from enum import Enum, StrEnum
from typing import ClassVar

from console.engine.events import OMIT_IF_NONE, Event, omitted_if_none
from console.engine.model import Json


class QuestionEnd(StrEnum):
    CORRECT = "correct"  # a team answered it (1 point, or the stake)
    UNANSWERED = "unanswered"  # nobody pressed in time, or every team is out of it
    CANCELLED = "cancelled"  # withdrawn by the host: played again


class PressReason(StrEnum):
    """Why a press does not count (texts.py has the Russian for each)."""

    BETWEEN_QUESTIONS = "between_questions"  # no question in play
    OUT_OF_QUESTION = "out_of_question"  # the team false-started or answered wrongly (regmik 2.4)
    SENT_OUT = "sent_out"  # the player was sent out (a wrong answer in the first second)
    ANSWERING = "answering"  # another team has the turn
    LATE = "late"  # after the count ended
    DELIVERED_TOO_LATE = "delivered_too_late"  # made first, delivered after the decision
    PAUSED = "paused"  # while the host held the count (a dispute): no press takes the turn then
    NOT_IN_EXTRA = "not_in_extra"  # extra questions are the tied leaders' only (regmik 2.3)


@dataclass(frozen=True, slots=True, kw_only=True)
class PressRecord:
    """A team's press in a decision, with how far behind the first one it was made."""

    team: str
    pad: str
    at_ns: int
    behind_ms: float


@dataclass(frozen=True, slots=True, kw_only=True)
class FightStarted(Event):
    """A new fight (scores to zero): `fight` counts the game's fights from 1."""

    TYPE: ClassVar[str] = "fight_started"

    fight: int
    scores: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class TeamRenamed(Event):
    """The host renamed `team` (it was `was`) between questions; its id, scores and standings
    stay."""

    TYPE: ClassVar[str] = "team_renamed"

    team: str
    name: str
    was: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PadAwaited(Event):
    """The next press of a button no team has becomes `team`'s (bind_pad), or the first of the
    new team `name` (add_team: `team` None)."""

    TYPE: ClassVar[str] = "pad_awaited"

    team: str | None
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PadBound(Event):
    """Button `pad`, pressed for it, is now one of `team`'s (`pads`: all of them)."""

    TYPE: ClassVar[str] = "pad_bound"
    CHANGES_PADS: ClassVar[bool] = True

    team: str
    pad: str
    pads: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TeamAdded(Event):
    """A team joined the game between fights, at 0, on button `pad` (add_team)."""

    TYPE: ClassVar[str] = "team_added"
    CHANGES_PADS: ClassVar[bool] = True

    team: str
    name: str
    pad: str
    scores: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class TeamRemoved(Event):
    """A team left the game between fights (remove_team); the others' scores stand."""

    TYPE: ClassVar[str] = "team_removed"
    CHANGES_PADS: ClassVar[bool] = True

    team: str
    name: str
    scores: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionStarted(Event):
    """The host began the question at `started_at_ns`: a press from now until «Время!» is a
    false start (windflower 2.4)."""

    TYPE: ClassVar[str] = "question_started"

    question: int
    stake: int
    extra: bool  # an extra question of a tied fight
    started_at_ns: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CountStarted(Event):
    """A count runs from `started_at_ns` to `ends_ns`: «Время!» (`by` "time") or the other
    teams' time after a false start or a wrong answer (`by` "rebound")."""

    TYPE: ClassVar[str] = "count_started"

    question: int
    by: str
    started_at_ns: int
    ends_ns: int
    seconds: float
    teams_in_play: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class FalseStart(Event):
    """A press before «Время!»: the team is out of this question (windflower 2.4; TV 5.1)."""

    TYPE: ClassVar[str] = "false_start"

    question: int
    team: str
    pad: str
    at_ns: int
    teams_in_play: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class SignalAccepted(Event):
    """The first press of a team in play stopped the count; `tied` on a press on the same tick
    (the draw decided, logged: the same seed gives the same draw in a replay)."""

    TYPE: ClassVar[str] = "signal_accepted"

    question: int
    team: str
    name: str
    pad: str
    press_at_ns: int
    remaining_ms: float  # what was left of the count
    presses: tuple[PressRecord, ...]
    tie: bool
    tied: tuple[str, ...] | None = omitted_if_none()
    inputs_lost: tuple[str, ...] | None = omitted_if_none()  # a box that may have lost a press


@dataclass(frozen=True, slots=True, kw_only=True)
class PressIgnored(Event):
    """A press that does not count, and why (`behind_ms`: behind the answering team's)."""

    TYPE: ClassVar[str] = "press_ignored"

    team: str
    pad: str
    at_ns: int
    reason: PressReason
    behind_ms: float | None = omitted_if_none()


@dataclass(frozen=True, slots=True, kw_only=True)
class CountWarning(Event):
    """The three short beeps: `remaining_s` left of the count."""

    TYPE: ClassVar[str] = "count_warning"

    question: int
    ends_ns: int
    remaining_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class CountPaused(Event):
    """The host held the count at `paused_at_ns` (a dispute, a question read again):
    `remaining_ms` of it are kept; a press made while it is held does not take the turn."""

    TYPE: ClassVar[str] = "count_paused"

    question: int
    paused_at_ns: int
    remaining_ms: float


@dataclass(frozen=True, slots=True, kw_only=True)
class CountResumed(Event):
    """The count goes on from `resumed_at_ns` with what it had left: it now ends at `ends_ns`
    (`paused_ms` later than before the pause)."""

    TYPE: ClassVar[str] = "count_resumed"

    question: int
    resumed_at_ns: int
    paused_ms: float
    ends_ns: int


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerJudged(Event):
    """The host judged the answering team's answer. A wrong answer in the first second sends
    the answering player out (a club/TV setting): `sent_out` names the player's own button
    when the team has one per player; with one button for the team, `player_sent_out` is true:
    the team keeps its button and answers without that player, whom the host names aloud."""

    TYPE: ClassVar[str] = "answer_judged"

    question: int
    team: str
    correct: bool
    delta: int
    score: int
    sent_out: str | None = omitted_if_none()
    player_sent_out: bool | None = omitted_if_none()


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeUp(Event):
    """The count ended with no press of a team in play (the end signal)."""

    TYPE: ClassVar[str] = "time_up"

    question: int
    ends_ns: int
    inputs_lost: tuple[str, ...] | None = omitted_if_none()


@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionEnded(Event):
    """The question is over: who took it (`winner`) and what the next one is worth."""

    TYPE: ClassVar[str] = "question_ended"

    question: int
    reason: QuestionEnd
    winner: str | None
    stake: int
    next_stake: int
    scores: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class ExtraQuestions(Event):
    """The fight's questions are played and the lead is shared: extra questions until one
    team leads (regmik 2.3)."""

    TYPE: ClassVar[str] = "extra_questions"

    tied: tuple[str, ...]
    scores: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class FightOver(Event):
    """The fight is won: a team reached the target, or leads after the fight's questions."""

    TYPE: ClassVar[str] = "fight_over"

    fight: int
    winner: str
    scores: Mapping[str, int]
    questions: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreAdjusted(Event):
    """The host changed a team's score by hand, for a reason."""

    TYPE: ClassVar[str] = "score_adjusted"

    team: str
    delta: int
    score: int
    reason: str
    scores: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class JudgementReversed(Event):
    """The last judgement of the question just played counts the other way, for a reason."""

    TYPE: ClassVar[str] = "judgement_reversed"

    question: int
    team: str
    correct: bool
    delta: int
    score: int
    reason: str
    scores: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class JudgementUndone(Event):
    """The host took back the judgement just given (a mistaken key), for a reason: the team
    answers again, its count stopped as it was, and the host judges anew."""

    TYPE: ClassVar[str] = "judgement_undone"

    question: int
    team: str
    correct: bool  # the judgement taken back
    delta: int  # what undoing it did to the team's score
    score: int
    reason: str
    scores: Mapping[str, int]


def event_view(record: object) -> dict[str, Json]:
    """A record's fields as its JSON has them (without ``type`` and ``t_ns``): the snapshot
    keeps the last decision and the last end this way."""
    view: dict[str, Json] = {}
    for f in fields(record):  # type: ignore[arg-type]
        if f.name == "t_ns":
            continue
        value = getattr(record, f.name)
        if value is None and f.metadata.get(OMIT_IF_NONE):
            continue
        view[f.name] = _json(value)
    return view


def _json(value: object) -> Json:
    if isinstance(value, Enum):
        return _json(value.value)
    if is_dataclass(value) and not isinstance(value, type):
        return event_view(value)
    if isinstance(value, Mapping):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_json(v) for v in value]
    assert value is None or isinstance(value, bool | int | float | str)
    return value
