"""Help at the «Что? Где? Когда?» table: extra time, the club's help, a saved minute, BINGO.

Contract: each function checks its clause against the game (000 6.1-6.2; 003 6.1.5, 6.3.1,
6.3.3), raises `NotAllowed` with nothing changed when the help is not allowed now, and
otherwise applies it to the `Ledger` and appends its events to `out`. Help time asked for
before the count is added to the coming count; during the count it extends it; after the time
is up it is a new count from the host's key.
"""

from __future__ import annotations

from console.engine.chgk.events import FortochkaMoved, HelpUsed, QuestionMoved, TimerExtended
from console.engine.chgk.ledger import Ledger
from console.engine.chgk.round import NotAllowed, Phase, RoundInPlay
from console.engine.chgk.rules import HELP_TITLES, ChgkHost, HelpKind, SectorKind, Side
from console.engine.model import NS_PER_S, Output
from console.engine.refusals import Why, why

HOW_APPLIED = {Phase.ASKED: "added_to_count", Phase.DISCUSSION: "extended", Phase.ANSWER: "new_count"}


def check_help(game: Ledger, kind: HelpKind) -> None:
    """Refuse `kind` unless the table offers it, it is unused and the score allows it."""
    rules = game.rules
    if kind not in rules.helps:
        raise NotAllowed(why(Why.HELP_NOT_AT_TABLE, help=HELP_TITLES[kind]))
    if kind in game.helps_used:
        raise NotAllowed(why(Why.HELP_USED, help=HELP_TITLES[kind]))
    team, club = game.score[Side.TEAM], game.score[Side.CLUB]
    if kind in rules.help_only_when_behind and team >= club:
        raise NotAllowed(why(Why.HELP_ONLY_BEHIND, team=team, club=club), score=game.score_json())


def use_saved_minute(game: Ledger, at: int, now: int, out: list[Output]) -> None:
    """A minute saved by an early answer, spent as extra time (003 6.1.5)."""
    time_help(game, None, game.rules.saved_minute_ns, at, now, out)


def check_time_help(game: Ledger, kind: HelpKind | None) -> RoundInPlay:
    """Refuse extra discussion time (`kind` None: a saved minute) unless it can be given now."""
    if kind is None and game.saved_minutes < 1:
        raise NotAllowed(why(Why.NO_MINUTE_SAVED))
    r = game.require_round()
    if r.played_as is SectorKind.ZEITNOT:
        raise NotAllowed(why(Why.HELP_NOT_IN_TIME_TROUBLE))
    if r.declared_early:
        raise NotAllowed(why(Why.EARLY_ANSWER_NOTHING_TO_EXTEND))
    if kind is not None:
        check_help(game, kind)
    return r


def time_help(game: Ledger, kind: HelpKind | None, length: int, at: int, now: int,
              out: list[Output]) -> None:
    """Extra discussion time (`kind` None: a saved minute): added to the coming count, to the
    running one, or a new count."""
    r = check_time_help(game, kind)
    if kind is not None:
        game.helps_used.add(kind)
    else:
        game.saved_minutes -= 1
    label = kind.value if kind else "saved_minute"
    r.helps.append(label)
    out.append(HelpUsed(t_ns=now, help=label, title=HELP_TITLES[kind] if kind else "Сэкономленная минута",
                        round=r.number, part=r.part, seconds=length / NS_PER_S,
                        applied=HOW_APPLIED[game.phase], saved_minutes=game.saved_minutes))
    if game.phase is Phase.ASKED:
        r.extra_ns += length
    elif game.phase is Phase.DISCUSSION and r.count is not None:
        r.count.deadline += length
        # A held count's times stand at its pause: the warning is armed against that moment.
        held_at = r.count.paused_at
        r.count.arm_warning(game.rules.warning_before_ns, now if held_at is None else held_at)
        out.append(TimerExtended(t_ns=now, round=r.number, part=r.part, deadline_ns=r.count.deadline,
                                 warning_ns=r.count.warn_at, seconds=r.count.seconds()))
    else:  # the time was up: the extra time is a new count from the host's key
        game.start_count(r, at, length, now, out)


def check_move(game: Ledger, sector: int | None, to_sector: int | None) -> tuple[int, int]:
    """Refuse BINGO's move of the envelope on `sector` to `to_sector` unless allowed now (003 6.3.1)."""
    game.require_ready()
    if game.final_round():
        raise NotAllowed(why(Why.MOVE_BEFORE_LAST_ROUND))
    check_help(game, HelpKind.MOVE_QUESTION)
    a, b = game.sector_arg(sector, "sector"), game.sector_arg(to_sector, "to_sector")
    if a == b:
        raise NotAllowed(why(Why.MOVE_SAME_SECTOR))
    if game.table[a].played:
        raise NotAllowed(why(Why.MOVE_SECTOR_PLAYED, sector=a), sector=a)
    return a, b


def move_question(game: Ledger, cmd: ChgkHost, now: int, out: list[Output]) -> None:
    """BINGO: one envelope moves on the table before a round (003 6.3.1)."""
    a, b = check_move(game, cmd.sector, cmd.to_sector)
    game.helps_used.add(HelpKind.MOVE_QUESTION)
    hidden = game.table.fortochka()
    game.table.swap(a, b)
    out.append(QuestionMoved(t_ns=now, from_sector=a, to_sector=b))
    if hidden in (a, b):
        out.append(FortochkaMoved(t_ns=now, sector=game.table.fortochka()))
