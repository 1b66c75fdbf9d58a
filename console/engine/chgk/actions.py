"""Which host actions the «Что? Где? Когда?» table would take now: the checks, and their list.

Contract: each ``check_*`` function is the precondition of one host action on the `Ledger`
(the referee's handler calls it before it changes anything), raising `NotAllowed` with the
reason; it changes nothing. `host_actions(game, lototron_box)` lists, in `ChgkAction` order
with ``pick_sector`` first, exactly the actions the referee would accept now, an action
with arguments being listed when some valid argument would be accepted (any sector to pick,
a pair of sectors to swap, a hall team's answer not yet counted, a freed sector to refill).
The host's screen enables exactly these buttons. It reads the same checks the handlers run,
so the list cannot drift from the decisions (tests/test_table_host.py tries every action).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from console.engine.chgk import corrections, endgame, hall, help
from console.engine.chgk.ledger import Ledger
from console.engine.chgk.round import NotAllowed, Phase, RoundInPlay
from console.engine.chgk.rules import ChgkAction, HelpKind, SectorKind
from console.engine.refusals import Why, why

PICK_SECTOR = "pick_sector"  # the host's pick: a `SectorPicked`, not a `ChgkAction`


def check_draw(game: Ledger, box: Sequence[str]) -> None:
    """The lototron draws the team at the start of a game (000 2.1)."""
    if not game.rules.teams:
        raise NotAllowed(why(Why.LOTOTRON_NO_TEAMS))
    if game.rounds or game.round is not None or game.phase is Phase.GAME_OVER:
        raise NotAllowed(why(Why.LOTOTRON_ONLY_AT_START))
    if game.team is not None:
        raise NotAllowed(why(Why.TEAM_ALREADY_AT_TABLE, team=game.team), team=game.team)
    if not box:
        raise NotAllowed(why(Why.LOTOTRON_ALL_DRAWN))


def check_pick(game: Ledger) -> None:
    """A sector can be picked: between rounds, with some sector left to play."""
    game.require_ready()
    if game.table.resolve(1, game.final_round())[0] is None:
        raise NotAllowed(why(Why.NO_SECTOR_LEFT))


def check_start_timer(game: Ledger) -> RoundInPlay:
    r = game.require_round()
    if game.phase is Phase.DISCUSSION:
        raise NotAllowed(why(Why.COUNT_ALREADY_RUNNING))
    if game.phase is Phase.ANSWER:
        raise NotAllowed(why(Why.EARLY_ANSWER_TO_JUDGE) if r.declared_early
                         else why(Why.TIME_UP_TO_JUDGE))
    return r


def check_pause(game: Ledger) -> RoundInPlay:
    """The count is held while it runs (a dispute, a dropped envelope), once until resumed."""
    r = game.require_round()
    if game.phase is not Phase.DISCUSSION or r.count is None:
        raise NotAllowed(why(Why.PAUSE_ONLY_WHILE_COUNTING))
    if r.count.paused_at is not None:
        raise NotAllowed(why(Why.COUNT_ALREADY_PAUSED))
    return r


def check_resume(game: Ledger) -> RoundInPlay:
    r = game.require_round()
    if game.phase is not Phase.DISCUSSION or r.count is None or r.count.paused_at is None:
        raise NotAllowed(why(Why.COUNT_NOT_PAUSED))
    return r


def check_early_answer(game: Ledger) -> RoundInPlay:
    r = game.require_round()
    if game.phase is not Phase.ASKED:
        raise NotAllowed(why(Why.EARLY_ANSWER_BEFORE_COUNT))
    return r


def check_player_leaves(game: Ledger) -> RoundInPlay:
    r = game.require_round()
    if r.played_as is not SectorKind.ZEITNOT:
        raise NotAllowed(why(Why.LEAVE_ONLY_IN_TIME_TROUBLE))
    if game.phase is not Phase.ASKED:
        raise NotAllowed(why(Why.LEAVE_BEFORE_COUNT))
    if r.at_table <= 1:
        raise NotAllowed(why(Why.ONE_PLAYER_LEFT))
    return r


def check_judge(game: Ledger) -> RoundInPlay:
    r = game.require_round()
    if game.phase is Phase.ASKED:
        raise NotAllowed(why(Why.DISCUSSION_NOT_STARTED))
    return r


def check_fortochka(game: Ledger) -> tuple[RoundInPlay, bool, int | None, list[int]]:
    """The envelope just opened is the fortochka (its place not configured): (round, final
    round, the sector played instead in a final round, the sectors skipped on the way)."""
    r = game.require_round()
    if game.fortochka_fell:
        raise NotAllowed(why(Why.FORTOCHKA_ALREADY))
    hidden = game.table.fortochka()
    if hidden is not None:
        raise NotAllowed(why(Why.FORTOCHKA_PLACED, sector=hidden), host_only=True)
    if game.phase is not Phase.ASKED or r.part != 1 or r.kind is not SectorKind.QUESTION:
        raise NotAllowed(why(Why.FORTOCHKA_NUMBERED_ONLY))
    final = game.final_round()
    # In the final round the next sector clockwise is played instead (000 4.2 д); this
    # one, revealed, stays spent. The search starts on it, so it is among the skipped.
    chosen, skipped, _ = game.table.resolve(r.sector, True)
    if final and chosen is None:
        raise NotAllowed(why(Why.FORTOCHKA_LAST_ROUND))
    return r, final, chosen, skipped


def _any(check: Callable[[int], object], candidates: range) -> None:
    """Accept when `check` accepts some candidate; else refuse with the first one's reason."""
    first: NotAllowed | None = None
    for candidate in candidates:
        try:
            check(candidate)
            return
        except NotAllowed as exc:
            first = first or exc
    raise first or NotAllowed(why(Why.NOTHING_TO_CHOOSE))


def _hall_open(game: Ledger) -> None:
    """Some hall team has a right answer still to be counted (000 3.6-3.7)."""
    last = game.round.number if game.round else len(game.rounds)
    parts = max(game.rules.blitz_parts, game.rules.duplet_parts, 1)
    for team in game.rules.teams:
        for number in range(1, last + 1):
            for part in range(1, parts + 1):
                try:
                    hall.hall_target(game, team.id, number, part)
                    return
                except NotAllowed:
                    continue
    raise NotAllowed(why(Why.HALL_NOTHING_TO_COUNT))


def host_actions(game: Ledger, box: Sequence[str]) -> list[str]:
    """The host actions the referee would accept now (see the module docstring)."""
    a = ChgkAction
    sectors = range(1, game.table.size + 1)
    checks: dict[str, Callable[[], object]] = {
        PICK_SECTOR: lambda: check_pick(game),
        a.NEW_GAME: lambda: None,
        a.DRAW_LOTOTRON: lambda: check_draw(game, box),
        a.START_TIMER: lambda: check_start_timer(game),
        a.EARLY_ANSWER: lambda: check_early_answer(game),
        a.PLAYER_LEAVES: lambda: check_player_leaves(game),
        a.ANSWER_CORRECT: lambda: check_judge(game),
        a.ANSWER_WRONG: lambda: check_judge(game),
        a.FORTOCHKA: lambda: check_fortochka(game),
        a.EXTRA_TIME: lambda: help.check_time_help(game, HelpKind.EXTRA_TIME),
        a.CLUB_HELP: lambda: help.check_time_help(game, HelpKind.CLUB_HELP),
        a.MOVE_QUESTION: lambda: _any(lambda s: help.check_move(game, s, s % game.table.size + 1),
                                      sectors),
        a.USE_SAVED_MINUTE: lambda: help.check_time_help(game, None),
        a.HINT_FROM_HALL: lambda: game.require_round(),
        a.HALL_CORRECT: lambda: _hall_open(game),
        a.REFILL: lambda: _any(lambda s: endgame.check_refill(game, s), sectors),
        a.DECISIVE_ROUND: lambda: endgame.check_decisive(game),
        a.CANCEL_ROUND: lambda: game.require_round(),
        a.CORRECT_ROUND: lambda: corrections.check(game, None, "?"),
        a.PAUSE: lambda: check_pause(game),
        a.RESUME: lambda: check_resume(game),
    }
    allowed: list[str] = []
    for action, check in checks.items():
        try:
            check()
        except NotAllowed:
            continue
        allowed.append(str(action))
    return allowed
