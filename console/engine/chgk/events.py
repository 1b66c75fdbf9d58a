"""What the «Что? Где? Когда?» table referee decides: its events and the records they carry.

Contract: every class here is a frozen event (see `console.engine.events`) whose fields are
declared in the order of the keys of its JSON in docs/mqtt-table.md, so `console.wire` writes
exactly the published objects. Events about the fortochka's place and the 12th sector's
question are for the host only (`AUDIENCE = "host"`). The records (`Score`, `SectorView`,
`TeamView`, `RoundRecord`, …) are what the referee keeps and hands on: the round history is a
tuple of `RoundRecord`s, never wire dicts, and the referee never reads an event back.

Class names start with `Table` where a plain name would clash with another game's event
(`TableGameStarted`, `TableGameOver`, …); the wire `TYPE` strings are the documented ones.
`event_from_json` turns a published object back into its event, for the screens that receive
JSON (the demo, a display) and dispatch on classes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Literal

from console.engine.chgk.rules import PickSource, SectorKind, Side, Stage
from console.engine.event_read import read_event
from console.engine.events import Event
from console.engine.model import Json

# ---------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True, kw_only=True)
class Score:
    """The table's score: the experts («знатоки») and their opponent (the host or the club)."""

    team: int
    club: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SectorView:
    """One sector as the hall may see it (a fortochka that has not fallen looks like a question)."""

    sector: int
    kind: SectorKind
    title: str
    envelope: int
    played: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class TeamView:
    """The team at the table."""

    id: str
    name: str
    main: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundRecord:
    """One finished round, as the game record keeps it (000 1.6.1, 3.6-3.7)."""

    round: int
    sector: int
    envelope: int
    kind: SectorKind
    played_as: SectorKind
    result: Side | None  # who scored; None: nobody (a fortochka in the first round)
    reason: str  # "correct", "wrong", "fortochka", "hint"
    value: int
    parts: tuple[bool, ...]  # each part's verdict
    early: tuple[bool, ...]  # each part: answered early
    asked: int  # parts asked (0 for the fortochka): what the hall may have answered
    helps: tuple[str, ...]
    score: Score  # after the round


@dataclass(frozen=True, slots=True, kw_only=True)
class Indicators:
    """The tie-break figures of one game (000 1.6.1 а-д), in order of weight."""

    won_superblitz: bool
    won_zeitnot: bool
    won_duplet: bool
    won_sector12: bool
    unused_help: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsolationRow:
    """One team in the consolation standings of a game (000 1.7.1-1.7.2)."""

    team: str
    name: str
    hall: int
    table: int
    wrong: int
    points: int


# ---------------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True, kw_only=True)
class TableCommandRefused(Event):
    """A host action or a pick the referee would not take now (nothing changed)."""

    TYPE: ClassVar[str] = "error"

    message: str
    details: dict[str, Json]


@dataclass(frozen=True, slots=True, kw_only=True)
class HostCommandRefused(TableCommandRefused):
    """A refusal whose reason gives away the fortochka's place: for the host only.

    Its ``audience`` is a field, written after ``details`` as the published JSON always had it.
    """

    audience: Literal["host"] = "host"


@dataclass(frozen=True, slots=True, kw_only=True)
class TableGameStarted(Event):
    TYPE: ClassVar[str] = "game_started"
    STARTS_GAME: ClassVar[bool] = True

    stage: Stage
    target: int
    team: TeamView | None
    players_at_table: int
    sectors: tuple[SectorView, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class FortochkaPlaced(Event):
    """Where the fortochka lies at the start of a game (000 4.2 д: the host's secret)."""

    TYPE: ClassVar[str] = "fortochka_placed"
    AUDIENCE: ClassVar[str | None] = "host"

    sector: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FortochkaMoved(Event):
    """BINGO moved the fortochka's envelope (003 6.3.1): its new place, for the host only."""

    TYPE: ClassVar[str] = "fortochka_moved"
    AUDIENCE: ClassVar[str | None] = "host"

    sector: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class LototronDrawn(Event):
    TYPE: ClassVar[str] = "lototron_drawn"

    team: str
    name: str
    number: int
    seed: int
    draw: int
    remaining: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class SectorChosen(Event):
    TYPE: ClassVar[str] = "sector_chosen"

    round: int
    source: PickSource
    picked: int
    picked_at_ns: int
    played_sector: int
    skipped: tuple[int, ...]
    fortochka_skipped: int | None
    kind: SectorKind
    played_as: SectorKind
    title: str
    envelope: int
    parts: int
    seconds: float | None
    value: int
    players_at_table: int
    final_round: bool
    decisive: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionNeeded(Event):
    """The 12th sector wants a random question from the base (000 4.2 г)."""

    TYPE: ClassVar[str] = "question_needed"

    kind: str  # "random_base"
    round: int
    sector: int
    part: int


@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionDrawn(Event):
    """The 12th sector's question, drawn from the loaded package: whole, for the host."""

    TYPE: ClassVar[str] = "question_drawn"
    AUDIENCE: ClassVar[str | None] = "host"

    round: int
    text: str
    answer: str
    accepted: str | None
    comment: str | None
    handout: str | None
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionUnavailable(Event):
    """The 12th sector's question could not be drawn: the same ``error`` (with ``source``
    "questions") the console published when it drew the question itself."""

    TYPE: ClassVar[str] = "error"

    source: str = "questions"
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionSource(Event):
    """Where the 12th sector's question comes from, for everybody."""

    TYPE: ClassVar[str] = "question_source"

    round: int
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FortochkaPlayed(Event):
    TYPE: ClassVar[str] = "fortochka_played"

    round: int
    sector: int
    to: Side | None
    reason: str  # "previous_correct", "previous_wrong", "no_previous_round"


@dataclass(frozen=True, slots=True, kw_only=True)
class TimerStarted(Event):
    TYPE: ClassVar[str] = "timer_started"

    round: int
    part: int
    parts: int
    started_at_ns: int
    deadline_ns: int
    warning_ns: int | None
    seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class TimerWarning(Event):
    TYPE: ClassVar[str] = "timer_warning"

    round: int
    part: int
    deadline_ns: int
    seconds: float
    remaining_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeUp(Event):
    TYPE: ClassVar[str] = "time_up"

    round: int
    part: int
    deadline_ns: int
    seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class TimerExtended(Event):
    TYPE: ClassVar[str] = "timer_extended"

    round: int
    part: int
    deadline_ns: int
    warning_ns: int | None
    seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class TimerPaused(Event):
    """The host held the count at `paused_at_ns` (a dispute, a dropped envelope): `remaining_ms`
    of it are kept; neither the warning nor «Время!» comes while it is held."""

    TYPE: ClassVar[str] = "timer_paused"

    round: int
    part: int
    paused_at_ns: int
    remaining_ms: float


@dataclass(frozen=True, slots=True, kw_only=True)
class TimerResumed(Event):
    """The held count goes on from `resumed_at_ns` with what it had left: it now ends at
    `deadline_ns` (`paused_ms` later than before), its warning at `warning_ns`."""

    TYPE: ClassVar[str] = "timer_resumed"

    round: int
    part: int
    resumed_at_ns: int
    paused_ms: float
    deadline_ns: int
    warning_ns: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class EarlyAnswerDeclared(Event):
    TYPE: ClassVar[str] = "early_answer"

    round: int
    part: int
    saves_minute: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerLeft(Event):
    TYPE: ClassVar[str] = "player_left"

    round: int
    players_at_table: int
    seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerJudged(Event):
    TYPE: ClassVar[str] = "answer_judged"

    round: int
    part: int
    parts: int
    correct: bool
    early: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class MinuteSaved(Event):
    TYPE: ClassVar[str] = "minute_saved"

    round: int
    saved_minutes: int


@dataclass(frozen=True, slots=True, kw_only=True)
class NextPart(Event):
    TYPE: ClassVar[str] = "next_part"

    round: int
    part: int
    parts: int
    seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class HelpUsed(Event):
    TYPE: ClassVar[str] = "help_used"

    help: str  # a HelpKind value or "saved_minute"
    title: str
    round: int
    part: int
    seconds: float
    applied: str  # "added_to_count", "extended", "new_count"
    saved_minutes: int


@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionMoved(Event):
    TYPE: ClassVar[str] = "question_moved"

    from_sector: int
    to_sector: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HintFromHall(Event):
    TYPE: ClassVar[str] = "hint_from_hall"

    round: int
    players_at_table: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HallAnswerRecorded(Event):
    TYPE: ClassVar[str] = "hall_answer_recorded"

    team: str
    name: str
    round: int
    part: int
    hall_points: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SectorRefilled(Event):
    TYPE: ClassVar[str] = "sector_refilled"

    sector: int
    envelope: int
    after_round: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DecisiveRoundTaken(Event):
    TYPE: ClassVar[str] = "decisive_round"

    score_before: Score
    points: int
    players_at_table: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundCancelled(Event):
    TYPE: ClassVar[str] = "round_cancelled"

    round: int
    sector: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundEnded(Event):
    """A round's end: its record without ``asked`` (which only the game record keeps)."""

    TYPE: ClassVar[str] = "round_ended"

    round: int
    sector: int
    envelope: int
    kind: SectorKind
    played_as: SectorKind
    result: Side | None
    reason: str
    value: int
    parts: tuple[bool, ...]
    early: tuple[bool, ...]
    helps: tuple[str, ...]
    score: Score

    @classmethod
    def of(cls, record: RoundRecord, t_ns: int) -> RoundEnded:
        return cls(t_ns=t_ns, round=record.round, sector=record.sector, envelope=record.envelope,
                   kind=record.kind, played_as=record.played_as, result=record.result,
                   reason=record.reason, value=record.value, parts=record.parts, early=record.early,
                   helps=record.helps, score=record.score)


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundCorrected(Event):
    """The host corrected the last round's result before the next pick (`correct_round`):
    its point went to `result` instead of `result_before`, for `reason`."""

    TYPE: ClassVar[str] = "round_corrected"

    round: int
    sector: int
    result_before: Side
    result: Side
    reason: str  # the host's, as given
    score: Score  # after the correction
    saved_minutes: int
    winner: Side | None  # the game's winner after it; null: the game goes on


@dataclass(frozen=True, slots=True, kw_only=True)
class TableGameOver(Event):
    TYPE: ClassVar[str] = "game_over"

    winner: Side
    score: Score
    rounds: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GameRecord(Event):
    """The game for the tournament tables (000 1.6.1, 1.7); a later one replaces an earlier one."""

    TYPE: ClassVar[str] = "game_record"
    RECORD: ClassVar[bool] = True

    stage: Stage
    target: int
    team: str | None
    opponent: str
    score: Score
    winner: Side | None
    decisive_round: bool
    rounds: tuple[RoundRecord, ...]
    indicators: Indicators
    table_points: int
    wrong_answers: int
    saved_minutes: int
    consolation: tuple[ConsolationRow, ...]
    started_at_ns: int | None  # when the game began: the same in every version of its record


TABLE_EVENTS: tuple[type[Event], ...] = (
    TableGameStarted, FortochkaPlaced, FortochkaMoved, LototronDrawn, SectorChosen, QuestionNeeded,
    QuestionDrawn, QuestionSource, FortochkaPlayed, TimerStarted, TimerWarning, TimeUp, TimerExtended,
    TimerPaused, TimerResumed, EarlyAnswerDeclared, PlayerLeft, AnswerJudged, MinuteSaved, NextPart,
    HelpUsed, QuestionMoved,
    HintFromHall, HallAnswerRecorded, SectorRefilled, DecisiveRoundTaken, RoundCancelled, RoundEnded,
    RoundCorrected, TableGameOver, GameRecord,
)
"""Every event the referee decides but its refusals (whose ``error`` type is shared)."""

_BY_TYPE: dict[str, type[Event]] = {cls.TYPE: cls for cls in TABLE_EVENTS}


def event_from_json(obj: Mapping[str, object]) -> Event | None:
    """The referee's event that `obj` (a published object) was written from, or None.

    None for a type the referee does not decide or an object that does not fit its class
    (an older or newer engine's). A refusal (``error``) comes back as `TableCommandRefused`
    when it carries ``details`` (the referee's), so screens can dispatch on classes.
    """
    if obj.get("type") == "error" and isinstance(obj.get("details"), Mapping):
        refusal = HostCommandRefused if obj.get("audience") == "host" else TableCommandRefused
        return read_event({"error": refusal}, obj)
    return read_event(_BY_TYPE, obj)
