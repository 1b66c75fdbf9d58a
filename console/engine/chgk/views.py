"""What the «Что? Где? Когда?» table referee shows: its snapshots and the game record.

Contract: `snapshot(game, now)` is the public state for the retained MQTT topic and the
displays: the fortochka looks like an ordinary sector until it falls. `host_snapshot` adds
where it lies, the host actions accepted now, the 12th sector's question and the correction.
`game_record(game, now)` is the game for the tournament tables (000 1.6.1,
1.7): score, rounds, the tie-break indicators and the consolation standings.
All are read from the `Ledger`; nothing here changes it.
"""

from __future__ import annotations

from console.engine.chgk.events import GameRecord, Indicators
from console.engine.chgk.hall import consolation
from console.engine.chgk.ledger import Ledger
from console.engine.chgk.question_draw import Question
from console.engine.chgk.rules import SectorKind, Side
from console.engine.model import Json


def snapshot(game: Ledger, now: int) -> dict[str, Json]:
    """The public state (no fortochka place)."""
    rules, r = game.rules, game.round
    team = game.team_view()
    return {
        "phase": game.phase.value,
        "stage": rules.stage.value,
        "target": rules.target,
        "team": None if team is None else {"id": team.id, "name": team.name, "main": team.main},
        "opponent": rules.opponent,
        "score": game.score_json(),
        "rounds_played": len(game.rounds),
        "final_round": game.final_round(),
        "decisive_round": game.decisive,
        "players_at_table": r.at_table if r else (1 if game.decisive else game.players),
        "sectors": [{"sector": s.sector, "kind": s.kind.value, "title": s.title, "envelope": s.envelope,
                     "played": s.played} for s in game.table.public_view()],
        "current": r.view(rules) if r else None,
        "timer": r.timer_view(now) if r else None,
        "helps": {k.value: ("used" if k in game.helps_used else "available") for k in sorted(rules.helps)},
        "saved_minutes": game.saved_minutes,
        "fortochka_fell": game.fortochka_fell,
        "hall": dict[str, Json](game.hall_points()),
        "winner": game.winner.value if game.winner else None,
    }


def host_snapshot(game: Ledger, now: int, actions: list[str]) -> dict[str, Json]:
    """`snapshot` plus what only the host may see: where the fortochka lies, `actions` (the
    host actions the referee would accept now), the 12th sector's question drawn for the round
    in play or the last one (until the next pick, so the host can read out the answer and the
    comment after the verdict), and which round a `correct_round` would correct."""
    last = game.rounds[-1] if game.rounds else None
    correction: Json = None
    if "correct_round" in actions and last is not None and last.result is not None:
        correction = {"round": last.round, "sector": last.sector, "result": last.result.value,
                      "to": (Side.CLUB if last.result is Side.TEAM else Side.TEAM).value}
    return {**snapshot(game, now), "fortochka": {"sector": game.table.fortochka(),
                                                 "fell": game.fortochka_fell},
            "host_actions": list[Json](actions), "host_question": host_question(game.question),
            "correction": correction}


def host_question(q: Question | None) -> Json:
    """The host's screen's question (the shared host-state contract): no theme and no value at
    the table; a rejected answer («Незачёт») as the one wrong answer; the pictures as media."""
    if q is None:
        return None
    return {"theme": None, "value": None, "text": q.text, "answer": q.answer, "comment": q.comment or "",
            "wrong": [q.rejected] if q.rejected else [], "media": list[Json](q.images),
            "accepted": q.accepted, "handout": q.handout, "source": q.source_line()}


def game_record(game: Ledger, now: int) -> GameRecord:
    """The game for the tournament tables: score, rounds, 000 1.6.1 and 1.7 figures."""
    rules = game.rules
    won = {row.kind for row in game.rounds if row.result is Side.TEAM}
    # 000 1.6.1 а-г, in order of weight; д (unused help) is counted apart
    indicators = Indicators(won_superblitz=SectorKind.SUPERBLITZ in won,
                            won_zeitnot=SectorKind.ZEITNOT in won, won_duplet=SectorKind.DUPLET in won,
                            won_sector12=SectorKind.SECTOR12 in won,
                            unused_help=len(rules.helps - game.helps_used))
    return GameRecord(
        t_ns=now, stage=rules.stage, target=rules.target, team=game.team,
        opponent=rules.opponent, score=game.score_record(), winner=game.winner,
        decisive_round=game.decisive, rounds=tuple(game.rounds), indicators=indicators,
        table_points=game.answer_points, wrong_answers=game.wrong_answers,
        saved_minutes=game.saved_minutes,
        consolation=consolation(rules.teams, game.hall_points(), game.team,
                                game.answer_points, game.wrong_answers),
        started_at_ns=game.started_at_ns,
    )
