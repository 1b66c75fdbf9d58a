"""What the «Своя игра» referee decides: one frozen record per event (seed 004, App.1-11).

Contract: each class is one event type of docs/mqtt.md / schemas/event.schema.json; its
fields are declared in the order of the JSON keys after ``type`` and ``t_ns`` (see
`console.engine.events`). The referee keeps the records it needs later (the last decision,
the last end) as these objects, never as their JSON; `decision_view` / `end_view` give the
snapshot's ``last_decision`` / ``last_end``: the event's JSON without ``type`` and ``t_ns``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, Literal

from console.engine.events import Event, omitted_if_none
from console.engine.model import Json
from console.engine.svoya.rules import TiePolicy


class EndReason(StrEnum):
    CORRECT = "correct"  # App.10.1
    ALL_WRONG = "all_wrong"  # App.10.2
    NO_SIGNAL = "no_signal"  # App.10.3
    CANCELLED = "cancelled"  # withdrawn by the host


class IgnoreReason(StrEnum):
    """Why a press does not count (texts.IGNORED has the Russian for each)."""

    FALSE_START = "false_start"  # before the value was announced (App.4)
    FALSE_START_LOCKOUT = "false_start_lockout"  # within the lockout after a false start
    BEFORE_RESET = "before_reset"  # before the host reset after a wrong answer (App.8)
    OUT_OF_QUESTION = "out_of_question"  # answered this question wrongly already (App.8)
    LATE = "late"  # after the signal window closed (App.4, App.8)
    ANSWERER_CHOSEN = "answerer_chosen"  # someone else already has the turn (App.5)
    DELIVERED_TOO_LATE = "delivered_too_late"  # made first, delivered after the decision
    WINDOW_CLOSED = "window_closed"  # made in the window, delivered after it closed with no signal
    QUESTION_CANCELLED = "question_cancelled"  # the host withdrew the question before it was decided


@dataclass(frozen=True, slots=True, kw_only=True)
class PressRecord:
    """One press taken into account for a decision."""

    player: str
    pad: str
    at_ns: int
    behind_ms: float  # after the first press (0 for it and for presses tied with it)


@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionStarted(Event):
    """The host announced the value (App.2): signals count from `announced_at_ns` (App.4)."""

    TYPE: ClassVar[str] = "question_started"

    announced_at_ns: int
    theme: int
    number: int
    value: int
    theme_name: str | None = omitted_if_none()  # the pack's name of the theme (only with a pack)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadingFinished(Event):
    """The reading ended: the 7-s signal window runs until `window_ends_ns` (App.4)."""

    TYPE: ClassVar[str] = "reading_finished"

    window_ends_ns: int | None
    players_in_play: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class SignalsReset(Event):
    """The host reset after a wrong answer (App.8-9); no window yet while the reading goes on."""

    TYPE: ClassVar[str] = "signals_reset"

    window_ends_ns: int | None
    players_in_play: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class SignalsHeld(Event):
    """A button source was lost (`since_ns`) while signals count: nothing after its last word
    is decided until it is back (its presses of the meantime are judged then by their time) or
    until `wait_ends_ns`, when the question is decided without it and the decision names it
    in `inputs_lost`."""

    TYPE: ClassVar[str] = "signals_held"

    source: str
    since_ns: int
    wait_ends_ns: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SignalsWaitOver(Event):
    """The lost source is not back by the end of the wait: the host decides, to withdraw the
    question and play it again (``cancel``) or to end it without the source (``end_question``);
    the question waits for the host meanwhile."""

    TYPE: ClassVar[str] = "signals_wait_over"

    source: str
    held_ms: float  # how long it has been away


@dataclass(frozen=True, slots=True, kw_only=True)
class SignalsResumed(Event):
    """The lost source is back (`given_up` False), or the wait for it is over (`given_up`
    True): the question goes on; decisions over the span it was away name it (inputs_lost)."""

    TYPE: ClassVar[str] = "signals_resumed"

    source: str
    held_ms: float  # how long it was away (or waited for)
    given_up: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class SignalAccepted(Event):
    """The first eligible signal took the turn (App.5); `tie_policy`/`tied` only on a tie."""

    TYPE: ClassVar[str] = "signal_accepted"

    player: str
    name: str
    pad: str
    press_at_ns: int
    value: int
    stop_reading: bool
    tie: bool
    presses: tuple[PressRecord, ...]
    tie_policy: TiePolicy | None = omitted_if_none()  # noqa: RUF009 - a field spec, not a default
    tied: tuple[str, ...] | None = omitted_if_none()
    # Sources that may have lost a press made before this one (frames lost on the line and not
    # sent again, or an MCU clock that could not be trusted): the host checks the decision.
    inputs_lost: tuple[str, ...] | None = omitted_if_none()


@dataclass(frozen=True, slots=True, kw_only=True)
class PressIgnored(Event):
    """A press that does not count, and why."""

    TYPE: ClassVar[str] = "press_ignored"

    player: str
    pad: str
    at_ns: int
    reason: IgnoreReason
    locked_until_ns: int | None = omitted_if_none()  # false_start under the lockout policy
    behind_ms: float | None = omitted_if_none()  # answerer_chosen, delivered_too_late


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerClockStarted(Event):
    """The answerer has `seconds` from `started_at_ns` to begin the answer (App.7)."""

    TYPE: ClassVar[str] = "answer_clock_started"

    started_at_ns: int
    player: str
    by: Literal["lamp", "host", "short_form"]
    deadline_ns: int
    seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerStarted(Event):
    """The answerer began to answer in time."""

    TYPE: ClassVar[str] = "answer_started"

    player: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerJudged(Event):
    """The answer was scored (App.3): by the host, or wrong by the 3-s timeout (App.7)."""

    TYPE: ClassVar[str] = "answer_judged"

    player: str
    correct: bool
    by: Literal["host", "timeout"]
    value: int
    delta: int
    score: int


@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionEnded(Event):
    """The question is over (App.10) or withdrawn; `winner` only for a correct answer."""

    TYPE: ClassVar[str] = "question_ended"

    reason: EndReason
    theme: int
    number: int
    value: int
    winner: str | None
    scores: Mapping[str, int]
    # no_signal only: sources that may have lost a press while signals counted (issue 10)
    inputs_lost: tuple[str, ...] | None = omitted_if_none()


@dataclass(frozen=True, slots=True, kw_only=True)
class GameOver(Event):
    """The fight is over: the last theme's last question was played, or the host ended it
    between questions (`end_game`)."""

    TYPE: ClassVar[str] = "game_over"

    scores: Mapping[str, int]
    ranking: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreAdjusted(Event):
    """The host changed a score by hand, for `reason` (a correction; the game is not touched)."""

    TYPE: ClassVar[str] = "score_adjusted"

    player: str
    delta: int
    score: int
    reason: str
    scores: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class JudgementReversed(Event):
    """The judgement of the question just played was reversed on appeal (004 4.1-4.3):
    `player`'s answer now counts as `correct`; `delta` undoes the old score and gives the new
    (twice the value); `winner` is who took the question now (None: nobody)."""

    TYPE: ClassVar[str] = "judgement_reversed"

    theme: int
    number: int
    player: str
    correct: bool
    value: int
    delta: int
    score: int
    winner: str | None
    reason: str
    scores: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class JudgementUndone(Event):
    """The judgement just given was taken back (a mistaken key): `player` answers again and
    the host judges anew; `delta` undoes its score (`correct`: the verdict taken back)."""

    TYPE: ClassVar[str] = "judgement_undone"

    theme: int
    number: int
    player: str
    correct: bool
    delta: int
    score: int
    reason: str
    scores: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class GameStarted(Event):
    """A new fight: scores to zero, from theme `theme` (1 after new_game; the pack's next one
    after next_fight)."""

    TYPE: ClassVar[str] = "game_started"

    scores: Mapping[str, int]
    theme: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class PackChosen(Event):
    """The host chose the pack `name` (its file `file`) and its round `round` («`round_name`»):
    the new fight (game_started) begins at the round's first theme, `theme` of the pack's
    `themes`."""

    TYPE: ClassVar[str] = "pack_chosen"

    file: str
    name: str
    round: int
    round_name: str
    theme: int
    themes: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ThemeSkipped(Event):
    """The host skipped the rest of theme `theme` (`skipped`: its questions not played); the
    fight goes on with the next theme, or is over if it was the last."""

    TYPE: ClassVar[str] = "theme_skipped"

    theme: int
    theme_name: str | None
    skipped: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerRenamed(Event):
    """The host renamed `player` (it was `was`)."""

    TYPE: ClassVar[str] = "player_renamed"

    player: str
    name: str
    was: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerAdded(Event):
    """A player joined the fight between questions, at 0, on button `pad` (004 App.3)."""

    TYPE: ClassVar[str] = "player_added"
    CHANGES_PADS: ClassVar[bool] = True

    player: str
    name: str
    pad: str
    scores: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerRemoved(Event):
    """A player left the fight between questions, with `score`; the others' scores stand."""

    TYPE: ClassVar[str] = "player_removed"
    CHANGES_PADS: ClassVar[bool] = True

    player: str
    name: str
    score: int
    scores: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class PadBound(Event):
    """`player`'s button is now `pad` (it was `was`): the one pressed for it."""

    TYPE: ClassVar[str] = "pad_bound"
    CHANGES_PADS: ClassVar[bool] = True

    player: str
    pad: str
    was: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PadAwaited(Event):
    """The next press of a button nobody has becomes `player`'s (`bind_pad`), or a new
    player's named `name` (`add_player` without a pad)."""

    TYPE: ClassVar[str] = "pad_awaited"

    player: str | None
    name: str


def decision_view(e: SignalAccepted) -> dict[str, Json]:
    """The snapshot's ``last_decision``: `e`'s JSON without ``type`` and ``t_ns``."""
    view: dict[str, Json] = {
        "player": e.player,
        "name": e.name,
        "pad": e.pad,
        "press_at_ns": e.press_at_ns,
        "value": e.value,
        "stop_reading": e.stop_reading,
        "tie": e.tie,
        "presses": [
            {"player": p.player, "pad": p.pad, "at_ns": p.at_ns, "behind_ms": p.behind_ms}
            for p in e.presses
        ],
    }
    if e.tie_policy is not None:
        view["tie_policy"] = e.tie_policy.value
    if e.tied is not None:
        view["tied"] = list(e.tied)
    if e.inputs_lost is not None:
        view["inputs_lost"] = list(e.inputs_lost)
    return view


def reversal_view(e: JudgementReversed) -> dict[str, Json]:
    """The snapshot's ``last_reversal``: `e`'s JSON without ``type`` and ``t_ns``."""
    return {
        "theme": e.theme,
        "number": e.number,
        "player": e.player,
        "correct": e.correct,
        "value": e.value,
        "delta": e.delta,
        "score": e.score,
        "winner": e.winner,
        "reason": e.reason,
        "scores": dict(e.scores),
    }


def end_view(e: QuestionEnded) -> dict[str, Json]:
    """The snapshot's ``last_end``: `e`'s JSON without ``type`` and ``t_ns``."""
    return {
        "reason": e.reason.value,
        "theme": e.theme,
        "number": e.number,
        "value": e.value,
        "winner": e.winner,
        "scores": dict(e.scores),
        **({} if e.inputs_lost is None else {"inputs_lost": list(e.inputs_lost)}),
    }
