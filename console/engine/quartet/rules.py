"""The parameters of an «Эрудит-квартет» fight (seed 004 §III) and the host's commands to it.

Contract: `QuartetRules` is everything set before a fight: the teams (a seat, i.e. a button,
each, and their roster), the round types in order, the stage of the tournament (which places
advance further, so which ties a shoot-out settles), the host's deadlines and the seed of the
lot. Each theme is judged by the «Своя игра» referee under `svoya`, whose players are rebuilt
per theme from the teams' seats, with the pack's theme of that turn when there is a pack.
`QuartetHost` is a host command of the fight (the «Своя игра» host actions stay
`console.engine.model.Host`). Construction checks the rules and raises ValueError naming the
problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from console.engine.model import NS_PER_S
from console.engine.svoya.rules import PackTheme, SvoyaRules


class RoundType(StrEnum):
    """The three kinds of round (3.6.1-3.6.3)."""

    OPEN = "open"  # the four themes named first; the players assigned within a minute (3.6.1)
    HALF_DARK = "half_dark"  # each theme named just before it; a player chosen within 20 s (3.6.2)
    DARK = "dark"  # the order of players fixed within a minute; themes named when played (3.6.3)


# The kinds of round as the host reads them, in the case a refusal uses («в тёмном раунде»).
ROUND_RU = {RoundType.OPEN: "открытом", RoundType.HALF_DARK: "полутёмном", RoundType.DARK: "тёмном"}


class Stage(StrEnum):
    """The stage of the tournament (seed 004 2.2.2-2.2.3): which places lead further."""

    GROUP = "group"  # places 1-2 to the semi-finals, 3-4 to the consolation fights
    SEMIFINAL = "semifinal"  # 1st to the final, 2nd may be the best runner-up
    CONSOLATION = "consolation"  # no place leads further
    FINAL = "final"  # every place is a prize: extra themes, no indicators (3.11)


# Boundary k: place k leads further than place k+1, so a tie across it is shot out (3.10).
ADVANCING: dict[Stage, frozenset[int]] = {
    Stage.GROUP: frozenset({2}),
    Stage.SEMIFINAL: frozenset({1, 2}),
    Stage.CONSOLATION: frozenset(),
    Stage.FINAL: frozenset({1, 2, 3}),
}


class QuartetAction(StrEnum):
    """The host's commands of the fight (besides the «Своя игра» ones, which judge a theme)."""

    NEW_FIGHT = "new_fight"  # scores to zero, before the first round
    START_ROUND = "start_round"  # open round: with the four theme names (3.6.1)
    NAME_THEME = "name_theme"  # the next theme's name (half-dark, dark, shoot-out)
    ASSIGN = "assign"  # a team's players: the round's order, or the next theme's player
    START_THEME = "start_theme"  # the players sit down: the theme's referee starts
    PENALTY = "penalty"  # talking to the team (3.5): warning, void or minus
    ABSENT = "absent"  # a player is not at the game (3.8), from the next round on
    PRESENT = "present"  # the player is back
    ADD_MEMBER = "add_member"  # `name` joins `team`'s roster (3.2), at the game from now on
    RENAME_MEMBER = "rename_member"  # `team`'s `player` is called `name` from now on (a typo fixed)
    # An appeal upheld (4.1 with 3.10): `team`'s answer to `question` of the theme just played
    # was right (a dual answer): it counts as that question taken, for `reason`.
    APPEAL = "appeal"


class Penalty(StrEnum):
    """What the host gives for talking to the team (3.5)."""

    WARNING = "warning"  # the first violation
    VOID = "void"  # a gross or repeated one: the answer to the current question does not count
    MINUS = "minus"  # or: minus the current question's value


@dataclass(frozen=True, slots=True)
class QuartetHost:
    """The host did `action` at `at`; the other fields are the arguments the action uses."""

    action: QuartetAction
    at: int
    team: str | None = None  # assign, penalty, absent, present, add_member, rename_member
    players: tuple[str | None, ...] | None = None  # assign (open, dark): one per theme, None = skipped
    player: str | None = None  # assign (half-dark, shoot-out; "" = the team skips), absent, present,
    # rename_member
    themes: tuple[str, ...] | None = None  # start_round (open)
    name: str | None = None  # name_theme, add_member, rename_member
    penalty: Penalty | None = None  # penalty
    gross: bool = False  # penalty: a gross violation is punished at once (3.5)
    question: int | None = None  # appeal: the question's number in the theme (1-5)
    reason: str | None = None  # appeal: why (the jury's words, journaled)

    def command(self) -> dict[str, object]:
        """The host command's JSON (docs/mqtt-quartet.md): the action and the arguments given."""
        args: dict[str, object] = {"action": self.action.value}
        for key in ("team", "player", "name", "question", "reason"):
            if getattr(self, key) is not None:
                args[key] = getattr(self, key)
        for key in ("players", "themes"):
            if getattr(self, key) is not None:
                args[key] = list(getattr(self, key))
        if self.penalty is not None:
            args["penalty"] = self.penalty.value
        if self.gross:
            args["gross"] = True
        return args


@dataclass(frozen=True, slots=True)
class QuartetTeam:
    id: str
    name: str
    pad: str  # the team's seat: the button its player of the theme presses
    players: tuple[str, ...]  # the roster, by name (3.2: any of them may play)


THEMES_PER_ROUND = 4  # 3.3
PLAYERS_PER_ROUND = 4  # 3.4


@dataclass(frozen=True, slots=True)
class QuartetRules:
    teams: tuple[QuartetTeam, ...]
    svoya: SvoyaRules  # each theme's referee: these rules with the theme's seats as players
    rounds: tuple[RoundType, ...] = (RoundType.OPEN, RoundType.HALF_DARK, RoundType.DARK)  # 3.3, 3.6
    stage: Stage = Stage.GROUP
    assign_ns: int = 60 * NS_PER_S  # open and dark rounds: a minute to assign (3.6.1, 3.6.3)
    choose_ns: int = 20 * NS_PER_S  # half-dark and shoot-out: 20 s to choose (3.6.2, 3.10)
    seed: int = 0  # the lot (3.10), logged with each draw
    # The themes in the order they are played (3.7: fixed before the fight), with the host's
    # questions: theme k of the fight (shoot-outs too) is the pack's k-th; () = no pack.
    pack: tuple[PackTheme, ...] = ()

    def __post_init__(self) -> None:
        if not 2 <= len(self.teams) <= 4:
            raise ValueError(f"a fight has 2 to 4 teams (3.1), got {len(self.teams)}")
        for what, values in (("ids", [t.id for t in self.teams]), ("seats", [t.pad for t in self.teams])):
            if len(set(values)) != len(values):
                raise ValueError(f"team {what} must be unique")
        for t in self.teams:
            if any(not p.strip() for p in t.players):
                raise ValueError(f"team {t.id!r}: a player's name may not be empty")
            if len(set(t.players)) != len(t.players):
                raise ValueError(f"team {t.id!r}: two players share a name")
        if not self.rounds:
            raise ValueError("a fight has at least one round (3.3: three)")
        if self.assign_ns <= 0 or self.choose_ns <= 0:
            raise ValueError("the assignment times must be positive")

    def team(self, team_id: str) -> QuartetTeam | None:
        return next((t for t in self.teams if t.id == team_id), None)


class FightPhase(StrEnum):
    BEFORE_ROUND = "before_round"
    BETWEEN_THEMES = "between_themes"
    THEME = "theme"
    SHOOTOUT_DUE = "shootout_due"
    OVER = "over"
