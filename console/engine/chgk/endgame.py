"""A «Что? Где? Когда?» table game's late stage: refills in the final and the decisive round.

Contract: `refill` puts a new envelope on a freed sector in the final, after rounds 1 up to
`rules.refill_until_round` (000 3.8.1); `take_decisive_round` resets the score for the one
round that decides the game (003 6.4; the reading is in its docstring). Each raises
`NotAllowed` with nothing changed when its clause does not allow it now, and otherwise changes
the `Ledger` and appends its event to `out`.
"""

from __future__ import annotations

from console.engine.chgk.events import DecisiveRoundTaken, SectorRefilled
from console.engine.chgk.ledger import Ledger
from console.engine.chgk.round import NotAllowed
from console.engine.chgk.rules import STAGE_RU, ChgkHost, Side, Stage
from console.engine.model import Output
from console.engine.refusals import Why, why


def check_refill(game: Ledger, sector: int | None) -> int:
    """Refuse a new envelope on `sector` unless 000 3.8.1 allows it now; the sector."""
    if game.rules.stage is not Stage.FINAL:
        raise NotAllowed(why(Why.REFILL_ONLY_IN_FINAL, stage=STAGE_RU[game.rules.stage]),
                         stage=game.rules.stage.value)
    game.require_ready()
    played = len(game.rounds)
    if not 1 <= played <= game.rules.refill_until_round:
        raise NotAllowed(why(Why.REFILL_ROUNDS, until=game.rules.refill_until_round, played=played),
                         rounds_played=played)
    number = game.sector_arg(sector, "sector")
    if not game.table[number].played:
        raise NotAllowed(why(Why.SECTOR_STILL_FULL, sector=number), sector=number)
    return number


def refill(game: Ledger, cmd: ChgkHost, now: int, out: list[Output]) -> None:
    """In the final, new envelopes go on freed sectors up to round 4 inclusive (000 3.8.1)."""
    number = check_refill(game, cmd.sector)
    played = len(game.rounds)
    envelope = game.table.refill(number)
    out.append(SectorRefilled(t_ns=now, sector=number, envelope=envelope, after_round=played))


def check_decisive(game: Ledger) -> None:
    """003 6.4: the score resets, one player stays, one round for 6 points decides the game.

    «Если набрали 5 очков и не могут без решающего раунда обойти соперников», read on
    this table's own game: the opponents are the other side of the score, the game goes
    to the winning score (`rules.target`) or until the table has no sector left. Without
    the decisive round the best the team can do is to win every round still on the table:
    it ends with min(team + left, target) points. It "cannot overtake" exactly when that
    does not beat the opponents' score; as the opponents are below the target, that is
    team + left <= opponents. So at 5:2, or at 5:5 in a game to 6, it is refused (the
    next round may win the game); at 5:7 in a final to 8 with one sector left it is
    allowed. `left` counts the sectors that can still be played (not the hidden fortochka
    before a round that may be the last: it is passed over then, 000 4.2 д).

    Consequence: in a game to 6 a team at 5 can always win the next round, so the decisive
    round is taken only in games to 7 or 8 whose table runs short. The other reading, that
    «соперники» are the other teams of the series and the clause is about the series
    standings, is not something this table knows; it is not taken here.
    """
    at = game.rules.decisive_round_at
    if at is None:
        raise NotAllowed(why(Why.NO_DECISIVE_ROUND))
    game.require_ready()
    if game.decisive:
        raise NotAllowed(why(Why.DECISIVE_ALREADY))
    team, club = game.score[Side.TEAM], game.score[Side.CLUB]
    if team != at:
        raise NotAllowed(why(Why.DECISIVE_SCORE, at=at, team=team),
                         score=game.score_json())
    left = game.table.unplayed()
    if game.final_round() and game.table.fortochka() is not None:
        left -= 1  # the fortochka is passed over in a round that may be the last (000 4.2 д)
    if left == 0:
        raise NotAllowed(why(Why.NO_SECTOR_LEFT), score=game.score_json())
    if team + left > club:
        raise NotAllowed(why(Why.DECISIVE_NOT_NEEDED, team=team, club=club, left=left),
                         score=game.score_json())


def take_decisive_round(game: Ledger, now: int, out: list[Output]) -> None:
    """The score resets for the one round that decides the game (003 6.4, `check_decisive`)."""
    check_decisive(game)
    before = game.score_record()
    game.score = {Side.TEAM: 0, Side.CLUB: 0}
    game.decisive = True
    game.correctable = False  # the score was reset: earlier verdicts are closed
    out.append(DecisiveRoundTaken(t_ns=now, score_before=before, points=game.rules.decisive_round_points,
                                  players_at_table=1))
