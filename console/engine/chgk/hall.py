"""The hall at the «Что? Где? Когда?» table: hall teams' written answers and the consolation standings.

Contract: `record_hall_answer` counts a hall team's right written answer to one question of a
round played or in play (000 3.6-3.7): it refuses (`NotAllowed`, nothing changed) a team at the
table, a round not played yet, a question not asked, the fortochka, or an answer counted already;
it is allowed after the game too. `consolation` ranks the teams of one game by hall and table
points (000 1.7.1-1.7.2).
"""

from __future__ import annotations

from collections.abc import Mapping

from console.engine.chgk.events import ConsolationRow, HallAnswerRecorded
from console.engine.chgk.ledger import Ledger
from console.engine.chgk.round import NotAllowed
from console.engine.chgk.rules import ChgkHost, SectorKind, Team
from console.engine.model import Output
from console.engine.refusals import Why, why


def hall_target(game: Ledger, team: str | None, round: int | None,
                part: int | None) -> tuple[str, int, int]:
    """Refuse a hall answer of `team` to question `round`/`part` unless it can be counted now
    (see the module docstring); the team, round and part it counts for (the defaults filled)."""
    if team is None:
        raise NotAllowed(why(Why.HALL_TEAM_MISSING))
    game.team_named(team)
    if team == game.team:
        raise NotAllowed(why(Why.HALL_TEAM_AT_TABLE, team=team), team=team)
    current = game.round
    last = current.number if current else len(game.rounds)
    number = round if round is not None else last
    if not 1 <= number <= last:
        raise NotAllowed(why(Why.ROUND_NOT_PLAYED, round=number), round=number)
    if current is not None and number == current.number:
        asked, kind = current.part, current.kind
    else:
        record = game.rounds[number - 1]
        asked, kind = record.asked, record.kind
    part = part if part is not None else asked
    if kind is SectorKind.FORTOCHKA or not 1 <= part <= asked:
        raise NotAllowed(why(Why.ROUND_HAS_NO_PART, round=number, part=part), round=number, part=part)
    if team in game.hall.get((number, part), []):
        raise NotAllowed(why(Why.HALL_ALREADY_COUNTED, team=team), round=number, part=part)
    return team, number, part


def record_hall_answer(game: Ledger, cmd: ChgkHost, now: int, out: list[Output]) -> None:
    """A hall team's written answer was right (000 3.6-3.7); allowed after the game too."""
    team, number, part = hall_target(game, cmd.team, cmd.round, cmd.part)
    game.hall.setdefault((number, part), []).append(team)
    name = next(t.name for t in game.rules.teams if t.id == team)
    out.append(HallAnswerRecorded(t_ns=now, team=team, name=name, round=number, part=part,
                                  hall_points=game.hall_points()[team]))


def consolation(teams: tuple[Team, ...], hall: Mapping[str, int], table_team: str | None,
                table_points: int, wrong_answers: int) -> tuple[ConsolationRow, ...]:
    """Consolation standings of one game, best first (000 1.7.1-1.7.2).

    Hall points plus table points; for a main-tournament team the table points count double
    and each wrong table answer is −1 (1.7.1); other teams' points are simply summed (1.7.2).
    `table_points` are the points won by answers (the fortochka's do not count, 000 4.2 д).
    """
    rows = []
    for order, t in enumerate(teams):
        table = table_points if t.id == table_team else 0
        wrong = wrong_answers if t.id == table_team else 0
        points = hall.get(t.id, 0) + (2 * table - wrong if t.main else table)
        row = ConsolationRow(team=t.id, name=t.name, hall=hall.get(t.id, 0), table=table, wrong=wrong,
                             points=points)
        rows.append((-points, order, row))
    return tuple(row for _, _, row in sorted(rows, key=lambda x: (x[0], x[1])))
