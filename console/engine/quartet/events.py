"""What the «Эрудит-квартет» fight decides (seed 004 §III): one frozen record per event.

Contract: each class is one event type of docs/mqtt-quartet.md / schemas/quartet_event.schema.json,
its fields in the order of the JSON keys after ``type`` and ``t_ns`` (see `console.engine.events`).
A theme's questions are judged by the «Своя игра» referee, whose events (question_started,
signal_accepted, answer_judged, ...) are published as they are, with the team ids as player ids;
its ``game_over`` becomes `ThemeEnded` here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from console.engine.events import Event
from console.engine.quartet.places import Lot, PendingShootout
from console.engine.quartet.rules import Penalty, RoundType, Stage


@dataclass(frozen=True, slots=True, kw_only=True)
class Seat:
    """Who sits at a team's button for the theme (3.4)."""

    team: str
    pad: str
    player: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaceRecord:
    """A team's place and the figures it was decided on (3.9-3.10)."""

    place: int
    team: str
    total: int
    plus: int
    taken: Mapping[str, int]  # "50" -> questions taken at 50, ...


@dataclass(frozen=True, slots=True, kw_only=True)
class FightStarted(Event):
    """A new fight: every total at zero, before the first round."""

    TYPE: ClassVar[str] = "fight_started"

    stage: Stage
    teams: tuple[str, ...]
    rounds: tuple[RoundType, ...]
    seed: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundStarted(Event):
    """A round began (3.6): `themes` are named at once only in an open round (3.6.1);
    `plays` is how many themes each team plays in it, fewer with fewer players present (3.8);
    `assign_ends_ns` ends the minute to assign the players (open, dark; 3.6.1, 3.6.3)."""

    TYPE: ClassVar[str] = "round_started"

    round: int
    round_type: RoundType
    themes: tuple[str, ...] | None
    plays: Mapping[str, int]
    assign_ends_ns: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ThemeNamed(Event):
    """The host named the next theme (3.6.2, 3.6.3); in a half-dark round and a shoot-out the
    teams have until `choose_ends_ns` to choose the player (3.6.2, 3.10)."""

    TYPE: ClassVar[str] = "theme_named"

    round: int
    theme: int
    name: str
    shootout: bool
    choose_ends_ns: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayersAssigned(Event):
    """A team told the host who plays which theme of the round (`order`, None: a theme it
    skips, 3.8); `late` when the minute or the 20 s had run out."""

    TYPE: ClassVar[str] = "players_assigned"

    round: int
    team: str
    order: tuple[str | None, ...]
    late: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class AssignTimeUp(Event):
    """The minute (3.6.1, 3.6.3) or the 20 s (3.6.2) ran out; `missing`: teams not done."""

    TYPE: ClassVar[str] = "assign_time_up"

    round: int
    theme: int | None
    missing: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ThemeStarted(Event):
    """The players sat down: `seats` says who is at which button for this theme (3.4)."""

    TYPE: ClassVar[str] = "theme_started"

    round: int
    theme: int
    name: str
    shootout: bool
    seats: tuple[Seat, ...]
    skipped: tuple[str, ...]  # teams with no player for this theme: 0 in it (3.8)


@dataclass(frozen=True, slots=True, kw_only=True)
class ThemeEnded(Event):
    """The theme's last question is over: each team's points in it and its fight total (3.9);
    a shoot-out's points do not count in the totals."""

    TYPE: ClassVar[str] = "theme_ended"

    round: int
    theme: int
    name: str
    shootout: bool
    scores: Mapping[str, int]
    totals: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class ThemeCorrected(Event):
    """An appeal on the theme just played changed its points (4.1-4.3; the referee's
    judgement_reversed / score_adjusted say how): its points now, the totals, the reason."""

    TYPE: ClassVar[str] = "theme_corrected"

    round: int
    theme: int
    name: str
    shootout: bool
    scores: Mapping[str, int]
    totals: Mapping[str, int]
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PenaltyGiven(Event):
    """The host punished a team for talking to its player (3.5); `value` and `question` name
    the question a void or a minus applies to."""

    TYPE: ClassVar[str] = "penalty_given"

    team: str
    player: str
    penalty: Penalty
    gross: bool
    warnings: int
    question: int | None
    value: int | None
    totals: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class PresenceChanged(Event):
    """A player left or came back (3.8): counted at the start of the next round."""

    TYPE: ClassVar[str] = "presence_changed"

    team: str
    player: str
    present: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class MemberRenamed(Event):
    """The host corrected a player's name on `team`'s roster (it was `was`): the same player,
    everywhere the fight names them (the roster, the round's order, the themes played)."""

    TYPE: ClassVar[str] = "member_renamed"

    team: str
    name: str
    was: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ShootoutNeeded(Event):
    """The places wait on a shoot-out theme among tied teams (3.10-3.11)."""

    TYPE: ClassVar[str] = "shootout_needed"

    pending: tuple[PendingShootout, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class FightOver(Event):
    """The places (3.10-3.11): `by[i]` says what put place i+1 above place i+2; `lots` are the
    draws made, each with its seed."""

    TYPE: ClassVar[str] = "fight_over"

    stage: Stage
    places: tuple[PlaceRecord, ...]
    by: tuple[str, ...]
    lots: tuple[Lot, ...]
    shootouts: int
