"""One round of an «Эрудит-квартет» fight: its themes' names and who of each team plays them.

Contract: `RoundState` is the working record of a round (3.6): its type, how many themes each
team plays (3.8), the themes' names as the host gives them, and each team's order of players.
`check_order` / `check_choice` return None for an assignment the rules allow, or the reason
(English, with the clause) it is refused. Pure data and checks: no events, no clock.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from console.engine.quartet.rules import THEMES_PER_ROUND, QuartetTeam, RoundType
from console.engine.refusals import Reason, Why, why

_CLAUSE = {RoundType.OPEN: "3.6.1", RoundType.HALF_DARK: "3.6.2", RoundType.DARK: "3.6.3"}


@dataclass
class RoundState:
    number: int  # 1-based
    type: RoundType
    plays: dict[str, int]  # team -> themes it plays in this round (3.8)
    names: list[str | None] = field(default_factory=lambda: [None] * THEMES_PER_ROUND)
    # team -> one entry per theme assigned so far: a player, or None for a theme it skips (3.8)
    order: dict[str, list[str | None]] = field(default_factory=dict)

    @property
    def clause(self) -> str:
        return _CLAUSE[self.type]

    def used(self, team: str, before: int) -> list[str]:
        """The players `team` has put on the themes before theme index `before`."""
        return [p for p in self.order.get(team, [])[:before] if p is not None]

    def entry(self, team: str, theme: int) -> tuple[bool, str | None]:
        """(assigned, player) for theme index `theme`."""
        order = self.order.get(team, [])
        return (True, order[theme]) if theme < len(order) else (False, None)


def check_order(team: QuartetTeam, present: Collection[str], plays: int,
                order: Sequence[str | None], clause: str) -> Reason | None:
    """A whole round's order (open, dark): one entry per theme, four different players (3.4),
    as many as the team has present (3.8)."""
    if len(order) != THEMES_PER_ROUND:
        return why(Why.ORDER_NAMES_EACH_THEME, themes=THEMES_PER_ROUND, clause=clause)
    players = [p for p in order if p is not None]
    for p in players:
        problem = _player_problem(team, present, p)
        if problem:
            return problem
    if len(set(players)) != len(players):
        return why(Why.ORDER_FOUR_DIFFERENT)
    if len(players) != plays:
        return why(Why.ORDER_COUNT, team=team.id, plays=plays, named=len(players))
    return None


def check_choice(team: QuartetTeam, present: Collection[str], plays: int, used: Sequence[str],
                 theme: int, player: str | None) -> Reason | None:
    """The player for theme index `theme` of a half-dark round (3.6.2); None: the team skips it."""
    left = THEMES_PER_ROUND - theme  # this theme and those after it
    to_play = plays - len(used)
    if player is None:
        if to_play >= left:
            return why(Why.TEAM_MUST_PLAY_THEME, team=team.id, to_play=to_play, left=left)
        return None
    problem = _player_problem(team, present, player)
    if problem:
        return problem
    if player in used:
        return why(Why.ALREADY_PLAYED_IN_ROUND, player=player)
    if to_play <= 0:
        return why(Why.TEAM_PLAYED_ALL_THEMES, team=team.id, plays=plays)
    return None


def not_a_player(player: str, team: QuartetTeam) -> Reason:
    """`player` is not on `team`, whose players the reason lists."""
    if not team.players:
        return why(Why.NOT_A_PLAYER_OF_EMPTY_TEAM, player=player, team=team.id)
    return why(Why.NOT_A_PLAYER_OF_TEAM_LISTED, player=player, team=team.id, players=", ".join(team.players))


def _player_problem(team: QuartetTeam, present: Collection[str], player: str) -> Reason | None:
    if player not in team.players:
        return not_a_player(player, team)
    if player not in present:
        return why(Why.PLAYER_ABSENT, player=player)
    return None
