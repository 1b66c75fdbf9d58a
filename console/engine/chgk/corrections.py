"""Correcting a round's result at the «Что? Где? Когда?» table: the host keyed the wrong verdict.

Contract: `check(game, to, reason)` refuses (`NotAllowed`, nothing changed) unless the last
round's point can go to the other side now, and returns that round and the side; `apply`
moves the point and says so with `RoundCorrected`, followed by the game's end (or a changed
winner) as `TableGameOver` and a fresh `GameRecord` when the game is over after it.

The rules (common sense for the table, as seed 004 4.1-4.3 puts a «Своя игра» appeal right
after the theme): every point of the table is one round's outcome, the experts' on a correct
answer and the opponents' on a wrong one (003 6.1.3-6.1.4). A verdict keyed wrongly is put
right before the next sector is picked: once the top has chosen again the game has moved on
(a cancelled round does not reopen the window: the spin happened). Only a host's verdict is
corrected: the fortochka's point follows the previous round by rule (000 4.2 д) and a hint
from the hall loses the round by rule (000 6.4). A round of several questions that stopped
on a wrong answer before its last question cannot turn into the experts' point (the rest
were never asked: cancel-and-replay is not something the console can do after the fact).
After the decisive round is taken the score was reset (003 6.4): earlier rounds are closed.

The point moves with the round's value; the consolation figures follow (000 1.7.1: table
points won by answers, wrong answers), and so does a minute saved by an early answer
(003 6.1.5: it cannot have been spent, no round has been played since). Later decisions
(hall answers, help used, refills) are untouched. A reason is required: it is published
and journaled with the correction.
"""

from __future__ import annotations

from dataclasses import replace

from console.engine.chgk import views
from console.engine.chgk.events import RoundCorrected, RoundRecord, TableGameOver
from console.engine.chgk.ledger import Ledger
from console.engine.chgk.round import ONE_MINUTE_KINDS, NotAllowed, Phase
from console.engine.chgk.rules import EarlyAnswer, SectorKind, Side
from console.engine.model import Output
from console.engine.refusals import Why, why

VERDICTS = ("correct", "wrong")  # the reasons of a round the host's verdict ended


def _parts(game: Ledger, record: RoundRecord) -> int:
    """How many questions the round had (blitz, superblitz and duplet have several)."""
    rules = game.rules
    return {SectorKind.BLITZ: rules.blitz_parts, SectorKind.SUPERBLITZ: rules.blitz_parts,
            SectorKind.DUPLET: rules.duplet_parts}.get(record.played_as, 1)


def check(game: Ledger, to: Side | None, reason: str | None) -> tuple[RoundRecord, Side]:
    """Refuse unless the last round's result can be corrected now (see the module docstring)."""
    if reason is None or not reason.strip():
        raise NotAllowed(why(Why.CORRECTION_NEEDS_REASON))
    if game.round is not None:
        raise NotAllowed(why(Why.CORRECTION_ROUND_IN_PLAY, round=game.round.number))
    if not game.rounds:
        raise NotAllowed(why(Why.NO_ROUND_IN_GAME))
    last = game.rounds[-1]
    if last.reason not in VERDICTS:
        code = {"fortochka": Why.ROUND_FORTOCHKA_BY_RULES, "hint": Why.ROUND_HINT_BY_RULES}.get(
            last.reason, Why.ROUND_SET_BY_RULES)
        raise NotAllowed(why(code, round=last.round, rule=last.reason), round=last.round)
    if not game.correctable:
        decisive_after = game.decisive and last.value == 1
        since = Why.CORRECTION_AFTER_DECISIVE if decisive_after else Why.CORRECTION_AFTER_PICK
        raise NotAllowed(why(since, round=last.round), round=last.round)
    assert last.result is not None  # a verdict always gives the point to a side
    side = to if to is not None else (Side.CLUB if last.result is Side.TEAM else Side.TEAM)
    if side is last.result:
        already = (why(Why.POINT_ALREADY_TEAM, round=last.round) if side is Side.TEAM
                   else why(Why.POINT_ALREADY_CLUB, round=last.round, opponent=game.rules.opponent))
        raise NotAllowed(already, round=last.round)
    parts = _parts(game, last)
    if side is Side.TEAM and len(last.parts) < parts:
        raise NotAllowed(why(Why.ROUND_STOPPED_EARLY, round=last.round, asked=len(last.parts), parts=parts),
                         round=last.round)
    return last, side


def apply(game: Ledger, to: Side | None, reason: str | None, now: int, out: list[Output]) -> None:
    """Move the last round's point (after `check`) and say so."""
    last, side = check(game, to, reason)
    assert reason is not None and last.result is not None
    before = last.result
    game.score[before] -= last.value
    game.score[side] += last.value
    right = side is Side.TEAM
    game.answer_points += last.value if right else -last.value
    game.wrong_answers += -1 if right else 1
    rules = game.rules
    if (rules.early_answer is EarlyAnswer.SAVES_MINUTE and last.played_as in ONE_MINUTE_KINDS
            and last.early and last.early[-1]):
        game.saved_minutes = max(0, game.saved_minutes + (1 if right else -1))  # 003 6.1.5
    record = replace(last, result=side, reason="correct" if right else "wrong",
                     parts=(*last.parts[:-1], right), score=game.score_record())
    game.rounds[-1] = record
    was = game.winner
    top = max(game.score.values())
    if game.decisive or top >= rules.target:
        game.winner = max(game.score, key=lambda s: (game.score[s], s is Side.TEAM))
        game.phase = Phase.GAME_OVER
    else:
        game.winner = None
        game.phase = Phase.READY
    out.append(RoundCorrected(t_ns=now, round=record.round, sector=record.sector, result_before=before,
                              result=side, reason=reason.strip(), score=record.score,
                              saved_minutes=game.saved_minutes, winner=game.winner))
    if game.winner is not None and game.winner is not was:
        out.append(TableGameOver(t_ns=now, winner=game.winner, score=game.score_record(),
                                 rounds=len(game.rounds)))
        out.append(views.game_record(game, now))
