"""The parameters and inputs of a «Что? Где? Когда?» table game (seeds 000 and 003).

`ChgkRules` holds everything a club sets up before a game: the table (12 or 13 sectors and
where the special ones lie), the stage (which fixes the winning score), every discussion
length, which help options the team has, and the seed of the lototron. The defaults follow
the «Что? То? Там?» regulation (seed 000); `ChgkRules.belgorod()` gives the Belgorod
championship (seed 003). Bad values raise `ValueError` naming the field. Durations are
host-monotonic nanoseconds.

Inputs are past-tense facts like the «Своя игра» ones: `SectorPicked` (the top, the
lototron or the host chose a sector) and `ChgkHost` (the host did something; a few actions
carry an argument in `sector`, `to_sector`, `team`, `round`, `part`, `to` or `reason`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from console.engine.model import NS_PER_S


class Stage(StrEnum):
    """The stage of the tournament, which sets the winning score (000 1.1.1, 3.8)."""

    QUALIFIER = "qualifier"  # to 6
    SEMIFINAL = "semifinal"  # to 7
    FINAL = "final"  # to 8; freed sectors are refilled (000 3.8.1)


STAGE_RU = {Stage.QUALIFIER: "отборочная игра", Stage.SEMIFINAL: "полуфинал", Stage.FINAL: "финал"}


TARGETS = {Stage.QUALIFIER: 6, Stage.SEMIFINAL: 7, Stage.FINAL: 8}


class SectorKind(StrEnum):
    QUESTION = "question"  # a numbered sector: one envelope, one question, 60 s (000 4.1)
    BLITZ = "blitz"  # 3 × 20 s, all right to score (003 6.2.2; 000 4.2 а)
    SUPERBLITZ = "superblitz"  # as blitz, one player stays (003 6.2.3; 000 4.2 б)
    DUPLET = "duplet"  # «дуплиц»: 2 × 30 s (or 3 × 20 s), all right to score (000 4.2 а)
    ZEITNOT = "zeitnot"  # «цейтнот»: 10 s + 10 s per player who leaves (000 4.2 в)
    SECTOR13 = "sector13"  # «13 сектор»: the host states its rules (003 6.2.1)
    SECTOR12 = "sector12"  # «12-й сектор»: a random question from the base (000 4.2 г)
    FORTOCHKA = "fortochka"  # «форточка»: hidden, no question (000 4.2 д)


TITLES = {
    SectorKind.QUESTION: "Вопрос",
    SectorKind.BLITZ: "Блиц",
    SectorKind.SUPERBLITZ: "Суперблиц",
    SectorKind.DUPLET: "Дуплиц",
    SectorKind.ZEITNOT: "Цейтнот",
    SectorKind.SECTOR13: "13 сектор",
    SectorKind.SECTOR12: "12-й сектор",
    SectorKind.FORTOCHKA: "Форточка",
}


class EarlyAnswer(StrEnum):
    """What a correct early answer earns (003 6.1.5 vs 000 5.1)."""

    SAVES_MINUTE = "saves_minute"  # 003 6.1.5: the minute may be used later (6.3.2)
    NOTHING = "nothing"  # 000 5.1: no extra minutes for early answers


class HelpKind(StrEnum):
    """The team's once-a-game options (000 6.1-6.3; 003 6.3)."""

    EXTRA_TIME = "extra_time"  # +30 s (000 6.1) or the extra minute (003 6.3.2)
    CLUB_HELP = "club_help"  # the club's help: 20 s on the voiced versions (003 6.3.3; 000 6.2)
    MOVE_QUESTION = "move_question"  # move one envelope on the table before a round (003 6.3.1)


HELP_TITLES = {
    HelpKind.EXTRA_TIME: "Дополнительное время",
    HelpKind.CLUB_HELP: "Помощь клуба",
    HelpKind.MOVE_QUESTION: "Перемещение вопроса",
}


class Side(StrEnum):
    """Who scores a round."""

    TEAM = "team"  # «знатоки»
    CLUB = "club"  # the opponent: the host (000) or «Зрители» (003)


class PickSource(StrEnum):
    TOP = "top"  # the spinning top's arrow (003 6.1.1; 000 2.1 1)
    LOTOTRON = "lototron"  # a draw from the box (000 2.1 2)
    HOST = "host"  # typed in by the host (e.g. the top's sensor failed)


class ChgkAction(StrEnum):
    """What the host can do at the ChGK table."""

    NEW_GAME = "new_game"  # a fresh table; `team` optionally seats a team
    DRAW_LOTOTRON = "draw_lototron"  # draw the team that plays now (000 2.1)
    START_TIMER = "start_timer"  # «Время!»: the discussion count starts at `at`
    EARLY_ANSWER = "early_answer"  # the captain answers without discussion (003 6.1.5; 000 5.1)
    PLAYER_LEAVES = "player_leaves"  # one player leaves the table on «цейтнот» (000 4.2 в)
    ANSWER_CORRECT = "answer_correct"  # the current question (or blitz part) was answered right
    ANSWER_WRONG = "answer_wrong"
    FORTOCHKA = "fortochka"  # the opened envelope is the fortochka (when its place is not in config)
    EXTRA_TIME = "extra_time"  # help: extra discussion time (000 6.1; 003 6.3.2)
    CLUB_HELP = "club_help"  # help: the club's help (000 6.2; 003 6.3.3)
    MOVE_QUESTION = "move_question"  # help: move the envelope on `sector` to `to_sector` (003 6.3.1)
    USE_SAVED_MINUTE = "use_saved_minute"  # spend a minute saved by an early answer (003 6.3.2)
    HINT_FROM_HALL = "hint_from_hall"  # a hint from the hall: the round is lost (000 6.4)
    HALL_CORRECT = "hall_correct"  # hall team `team` answered question `round`/`part` right (000 3.6-3.7)
    REFILL = "refill"  # a new envelope on freed `sector` (final, up to round 4: 000 3.8.1)
    DECISIVE_ROUND = "decisive_round"  # the team takes the decisive round (003 6.4)
    CANCEL_ROUND = "cancel_round"  # withdraw the round in play: no score, the sector is unplayed again
    CORRECT_ROUND = "correct_round"  # the last round's point goes `to` the other side, for `reason`
    PAUSE = "pause"  # hold the running count (a dispute, a dropped envelope): what is left is kept
    RESUME = "resume"  # the held count goes on with what it had left


@dataclass(frozen=True, slots=True)
class Team:
    id: str
    name: str
    main: bool = True  # registered for the main tournament (000 1.4, 1.7.1)


@dataclass(frozen=True, slots=True)
class SectorPicked:
    """The sector `sector` (1..N clockwise) was chosen at `at` by `source`."""

    sector: int
    at: int
    source: PickSource = PickSource.TOP


@dataclass(frozen=True, slots=True)
class ChgkHost:
    """The host did `action` at `at`; the argument fields are used by the actions that name them."""

    action: ChgkAction
    at: int
    sector: int | None = None  # refill, move_question (the envelope's sector)
    to_sector: int | None = None  # move_question
    team: str | None = None  # hall_correct, new_game
    round: int | None = None  # hall_correct: default the round in play or the last one
    part: int | None = None  # hall_correct: default the part in play or the last one
    to: Side | None = None  # correct_round: who gets the point (default: the other side)
    reason: str | None = None  # correct_round: why (required)


ChgkInput = SectorPicked | ChgkHost

S = NS_PER_S
ALL_HELPS = frozenset(HelpKind)


@dataclass(frozen=True, slots=True)
class ChgkRules:
    """Everything set before a game. See the module docstring; clause refs on each field."""

    sectors: int = 12  # 000 3.8.1: 12; 003 6.2: 13
    special: Mapping[int, SectorKind] = field(default_factory=dict)  # sector -> kind
    fortochka_sector: int | None = None  # known only to the host (000 4.2 д); None: none placed
    stage: Stage = Stage.QUALIFIER
    table_players: int = 6  # players at the table at the start (000 1.3: teams of 5-6)
    teams: tuple[Team, ...] = ()  # the lototron's box and the hall (000 2.1, 1.7)
    table_team: str | None = None  # the team at the table, if not drawn
    opponent: str = "Ведущий"  # who scores on a wrong answer: the host (000 4.2 д), «Зрители» (003)
    discussion_ns: int = 60 * S  # 000 3.3; 003 6.1.2
    sector13_ns: int = 60 * S  # the host states the 13th sector's rules (003 6.2.1): a minute unless set
    blitz_parts: int = 3  # 003 6.2.2; 000 4.2 б
    blitz_part_ns: int = 20 * S
    duplet_parts: int = 2  # 000 4.2 а: two at 30 s (duplet) or three at 20 s (blitz-like)
    duplet_part_ns: int = 30 * S
    zeitnot_base_ns: int = 10 * S  # 000 4.2 в
    zeitnot_step_ns: int = 10 * S  # per player who leaves; 60 s when one is left
    warning_before_ns: int = 10 * S  # the «10 секунд» warning before the end of a count
    early_answer: EarlyAnswer = EarlyAnswer.NOTHING  # 000 5.1
    helps: frozenset[HelpKind] = frozenset({HelpKind.EXTRA_TIME, HelpKind.CLUB_HELP})  # 000 6.1-6.2
    help_only_when_behind: frozenset[HelpKind] = ALL_HELPS  # 000 6.1-6.2; 003: only 6.3.3 (club help)
    extra_time_ns: int = 30 * S  # 000 6.1; 003 6.3.2: a minute
    club_help_ns: int = 20 * S  # 003 6.3.3 (000 6.2 gives no length: the same 20 s)
    saved_minute_ns: int = 60 * S  # 003 6.1.5, 6.3.2
    refill_until_round: int = 4  # 000 3.8.1: refills after rounds 1..4 in the final
    decisive_round_at: int | None = None  # 003 6.4: the team's score that allows it (5); None: off
    decisive_round_points: int = 6  # 003 6.4.1
    seed: int = 0  # the lototron's draw (000 2.1), logged in its event

    def __post_init__(self) -> None:
        _check(self.sectors in (12, 13), "sectors",
               f"must be 12 (000 3.8.1) or 13 (003 6.2), got {self.sectors}")
        for sector, kind in self.special.items():
            _check(1 <= sector <= self.sectors, "special",
                   f"sector {sector} is not on a table of {self.sectors}")
            _check(kind not in (SectorKind.QUESTION, SectorKind.FORTOCHKA), "special",
                   f"sector {sector}: {kind.value!r} is not a special sector to place "
                   "(the fortochka goes in fortochka_sector)")
        if self.fortochka_sector is not None:
            _check(1 <= self.fortochka_sector <= self.sectors, "fortochka_sector",
                   f"sector {self.fortochka_sector} is not on a table of {self.sectors}")
            _check(self.fortochka_sector not in self.special, "fortochka_sector",
                   "the fortochka hides in a numbered sector, not on a special one (000 4.2 д)")
        _check(self.table_players >= 1, "table_players", "at least one player sits at the table")
        ids = [t.id for t in self.teams]
        _check(len(set(ids)) == len(ids), "teams", "team ids must be unique")
        _check(self.table_team is None or self.table_team in ids, "table_team",
               f"{self.table_team!r} is not one of the teams")
        for name in ("discussion_ns", "sector13_ns", "blitz_part_ns", "duplet_part_ns", "zeitnot_base_ns",
                     "zeitnot_step_ns", "extra_time_ns", "club_help_ns", "saved_minute_ns"):
            _check(getattr(self, name) > 0, name, "must be positive")
        _check(self.warning_before_ns >= 0, "warning_before_ns", "must not be negative")
        _check(self.blitz_parts >= 1, "blitz_parts", "at least one question")
        _check(self.duplet_parts >= 2, "duplet_parts", "a duplet has at least two questions (000 4.2 а)")
        _check(self.refill_until_round >= 0, "refill_until_round", "must not be negative")
        if self.decisive_round_at is not None:
            _check(0 < self.decisive_round_at < self.target, "decisive_round_at",
                   f"must be between 1 and {self.target - 1} (the winning score is {self.target})")
        _check(self.decisive_round_points >= 1, "decisive_round_points", "must be positive")

    @property
    def target(self) -> int:
        """The winning score: 6, 7 or 8 by stage (000 1.1.1, 3.8)."""
        return TARGETS[self.stage]

    def kind_of(self, sector: int) -> SectorKind:
        """The true kind of `sector` as set up (the fortochka included)."""
        if sector == self.fortochka_sector:
            return SectorKind.FORTOCHKA
        return self.special.get(sector, SectorKind.QUESTION)

    @classmethod
    def tto(cls, **overrides: object) -> ChgkRules:
        """«Что? То? Там?» (seed 000): the defaults."""
        return _preset(cls, {}, overrides)

    @classmethod
    def belgorod(cls, **overrides: object) -> ChgkRules:
        """The Belgorod championship series (seed 003 §6)."""
        preset: dict[str, object] = {
            "sectors": 13,
            "opponent": "Зрители",
            "early_answer": EarlyAnswer.SAVES_MINUTE,
            "helps": ALL_HELPS,
            # 6.3.1 (a move, not before a round that may be the last) and 6.3.2 (the extra minute)
            # carry no score condition; 6.3.3 (the club's help) is "только при отставании в счёте".
            "help_only_when_behind": frozenset({HelpKind.CLUB_HELP}),
            "extra_time_ns": 60 * S,
            "decisive_round_at": 5,
        }
        return _preset(cls, preset, overrides)


def _preset(cls: type[ChgkRules], preset: Mapping[str, object], overrides: Mapping[str, object]) -> ChgkRules:
    # Overrides are fields by name (from config or a test); typing them here would list every
    # field of the class a second time. `__post_init__` still rejects bad values by name.
    make: Callable[..., ChgkRules] = cls
    return make(**{**preset, **overrides})


def _check(ok: bool, name: str, problem: str) -> None:
    if not ok:
        raise ValueError(f"ChgkRules.{name}: {problem}")
