"""The «Что? Где? Когда?» table referee: a pure state machine over timestamped inputs.

Theory of operation (seeds 000 «Что? То? Там?» and 003 Belgorod §6; clause refs inline):

``ready`` --SectorPicked--> ``asked`` (a question or a blitz/duplet part is on the table)
``asked`` --start_timer («Время!»)--> ``discussion`` --the count ends--> ``answer``
``asked`` --early_answer--> ``answer``; ``discussion``/``answer`` --answer_correct/wrong-->
the next part (``asked``) or the round's end (``ready``, or ``game_over`` at the winning score).

A round is one sector. A pick on a played sector plays the next unplayed one clockwise
(003 6.1.1); the fortochka has no question and is settled at once (000 4.2 д). The team
scores on a correct answer (all parts right for blitz/duplet), the opponent (the host or
the club) on a wrong one (003 6.1.3-4); the first to 6/7/8 by stage wins (000 1.1.1, 3.8).
Help, BINGO, the hall's hint, hall answers, refills and the decisive round are host actions
checked against the clauses; one that is not allowed now gives an ``error`` event and
changes nothing. The fortochka's place is secret: events about it are for the host
(`AUDIENCE = "host"`; every other event is public) and `snapshot` shows it as an ordinary
sector until it falls; `host_snapshot` shows it. The events are the typed records of
`chgk_events`; the round history is kept as `RoundRecord`s and never read back from events.

The pieces: this module is the state machine (rounds, parts, verdicts, the fortochka, the
host's actions); `chgk_game` keeps one game's bookkeeping and its checks, `chgk_round` the
round in play and its count, `chgk_help` help and BINGO, `chgk_hall` the hall's answers,
`chgk_endgame` refills and the decisive round, `chgk_views` the snapshots and the game record.

The engine reads no clock and does no I/O: ``handle(input, now)`` and ``on_timer(now)``
return outputs, ``next_deadline()`` says when to call ``on_timer``; the only randomness is
the lototron's ``random.Random(rules.seed)``. The same inputs always give the same outputs.
"""

from __future__ import annotations

import random

from console.engine.chgk import actions, corrections, endgame, hall, help, views
from console.engine.chgk.events import (
    AnswerJudged,
    EarlyAnswerDeclared,
    FortochkaPlaced,
    FortochkaPlayed,
    HintFromHall,
    HostCommandRefused,
    LototronDrawn,
    MinuteSaved,
    NextPart,
    PlayerLeft,
    QuestionDrawn,
    QuestionNeeded,
    QuestionSource,
    QuestionUnavailable,
    RoundCancelled,
    RoundEnded,
    SectorChosen,
    TableCommandRefused,
    TableGameOver,
    TableGameStarted,
    TimerPaused,
    TimerResumed,
    TimerWarning,
    TimeUp,
)
from console.engine.chgk.ledger import Ledger
from console.engine.chgk.question_draw import QuestionDeck, QuestionPool
from console.engine.chgk.round import NotAllowed, Phase, RoundInPlay
from console.engine.chgk.rules import (
    TITLES,
    ChgkAction,
    ChgkHost,
    ChgkInput,
    ChgkRules,
    HelpKind,
    PickSource,
    SectorKind,
    SectorPicked,
    Side,
)
from console.engine.events import refusal_message
from console.engine.model import NS_PER_S, Cue, Json, Output, PlayCue
from console.engine.refusals import Why, why

__all__ = ["ChgkReferee", "Phase"]


class ChgkReferee:
    """Referee of one table game at a time. See the module docstring for the contract."""

    def __init__(self, rules: ChgkRules, questions: QuestionPool | None = None) -> None:
        self.rules = rules
        self._rng = random.Random(rules.seed)
        # The 12th sector's draw: the game's seed, for as long as the engine lives (no repeats
        # across games of one run), so a replay of the journal draws the same questions.
        self._deck = QuestionDeck(questions or QuestionPool(), rules.seed)
        self._box = [t.id for t in rules.teams]  # the lototron's box: teams not drawn yet
        self._draws = 0
        self._game = self._new_game(rules.table_team)

    def _new_game(self, team: str | None) -> Ledger:
        if team is not None and team in self._box:
            self._box.remove(team)  # a seated team has its game; the box keeps the others
        return Ledger.new(self.rules, team)

    # ------------------------------------------------------------------ public API

    @property
    def phase(self) -> Phase:
        return self._game.phase

    @property
    def score(self) -> dict[str, int]:
        return {side.value: points for side, points in self._game.score.items()}

    def handle(self, inp: ChgkInput, now: int) -> list[Output]:
        """Take one input at host time `now`; due timers fire first."""
        out: list[Output] = []
        self._fire_due(now, out)
        if self._game.started_at_ns is None:
            self._game.started_at_ns = now  # the referee's first game begins with its first input
        local: list[Output] = []
        try:
            if isinstance(inp, SectorPicked):
                self._on_pick(inp, now, local)
            else:
                self._on_host(inp, now, local)
        except NotAllowed as exc:
            action = "pick" if isinstance(inp, SectorPicked) else inp.action.value
            details: dict[str, Json] = {"action": action, "phase": self._game.phase.value,
                                        "reason": exc.reason.text, "code": exc.reason.code.value,
                                        **exc.details}
            refused = HostCommandRefused if exc.host_only else TableCommandRefused
            local = [refused(t_ns=now, message=refusal_message(action, exc.reason), details=details)]
        out += local
        self._fire_due(now, out)
        return out

    def draw_lototron(self, now: int) -> list[Output]:
        """The host's lototron draw (000 2.1) at `now`: the same as the draw_lototron action."""
        return self.handle(ChgkHost(ChgkAction.DRAW_LOTOTRON, now), now)

    def on_timer(self, now: int) -> list[Output]:
        """Fire whatever is due at `now` (the 10-s warning, the end of a count)."""
        out: list[Output] = []
        self._fire_due(now, out)
        return out

    def next_deadline(self) -> int | None:
        """The host time at which `on_timer` must be called next, or None."""
        r = self._game.round
        if self._game.phase is not Phase.DISCUSSION or r is None or r.count is None:
            return None
        c = r.count
        if c.paused_at is not None:  # held by the host: nothing is due until it resumes
            return None
        return c.deadline if c.warn_at is None else min(c.warn_at, c.deadline)

    def snapshot(self, now: int) -> dict[str, Json]:
        """The public state, for the retained MQTT topic and the displays (no fortochka place)."""
        return views.snapshot(self._game, now)

    def running_timer(self) -> tuple[str, int] | None:
        """The discussion count a display shows: ("discussion", its deadline), or None."""
        r = self._game.round
        if r is None or r.count is None:
            return None
        return "discussion", r.count.deadline

    def host_snapshot(self, now: int) -> dict[str, Json]:
        """`snapshot` plus what only the host may see: where the fortochka lies, the host
        actions the referee would accept now, the 12th sector's question (`chgk_views`)."""
        return views.host_snapshot(self._game, now, actions.host_actions(self._game, self._box))

    # ------------------------------------------------------------------ choosing a sector

    def _on_pick(self, pick: SectorPicked, now: int, out: list[Output]) -> None:
        game = self._game
        actions.check_pick(game)
        if pick.sector not in game.table:
            raise NotAllowed(why(Why.NO_SUCH_SECTOR, sectors=self.rules.sectors, sector=pick.sector),
                             sector=pick.sector)
        chosen, skipped, passed = game.table.resolve(pick.sector, game.final_round())
        if chosen is None:
            raise NotAllowed(why(Why.NO_SECTOR_LEFT), sector=pick.sector)
        if passed is not None:
            # Not played in the final round (000 4.2 д); revealed by its fall, it is spent.
            game.table[passed].played = True
            game.fortochka_fell = True
        self._start_round(chosen, pick, skipped, passed, now, out)

    def _start_round(self, number: int, pick: SectorPicked, skipped: list[int], passed: int | None,
                     now: int, out: list[Output]) -> None:
        game = self._game
        sector = game.table[number]
        kind = sector.kind
        played_as = SectorKind.SUPERBLITZ if game.decisive and kind is SectorKind.BLITZ else kind
        parts = {SectorKind.BLITZ: self.rules.blitz_parts, SectorKind.SUPERBLITZ: self.rules.blitz_parts,
                 SectorKind.DUPLET: self.rules.duplet_parts, SectorKind.FORTOCHKA: 0}.get(played_as, 1)
        alone = played_as is SectorKind.SUPERBLITZ or game.decisive  # 003 6.2.3, 6.4; 000 4.2 б
        seated = 1 if alone else game.players
        sector.played = True
        game.correctable = False  # the game moved on: the previous verdict stands
        game.question = None
        r = RoundInPlay(number=len(game.rounds) + 1, sector=sector.number, kind=kind, played_as=played_as,
                        envelope=sector.envelope, parts=parts, seated=seated, at_table=seated,
                        value=self.rules.decisive_round_points if game.decisive else 1)
        game.round = r
        game.phase = Phase.ASKED
        out.append(SectorChosen(
            t_ns=now,
            round=r.number,
            source=pick.source,
            picked=pick.sector,
            picked_at_ns=pick.at,
            played_sector=sector.number,
            skipped=tuple(skipped),
            fortochka_skipped=passed,
            kind=kind,
            played_as=played_as,
            title=TITLES[played_as],
            envelope=sector.envelope,
            parts=parts,
            seconds=None if kind is SectorKind.FORTOCHKA else r.part_ns(self.rules) / NS_PER_S,
            value=r.value,
            players_at_table=r.at_table,
            final_round=game.final_round(),
            decisive=game.decisive,
        ))
        if kind is SectorKind.FORTOCHKA:
            self._play_fortochka(r, now, out)
        elif kind is SectorKind.SECTOR12:
            out.append(QuestionNeeded(t_ns=now, kind="random_base", round=r.number, sector=r.sector, part=1))
            self._draw_question(r.number, now, out)

    def _draw_question(self, number: int, now: int, out: list[Output]) -> None:
        """A random question from the loaded package (000 4.2 г): whole for the host, its source
        for everybody; with none to draw, the problem, and the host reads one of their own."""
        drawn = self._deck.draw()
        if isinstance(drawn, tuple):
            out += [QuestionUnavailable(t_ns=now, message=message) for message in drawn]
            return
        source = drawn.source_line()
        self._game.question = drawn
        out.append(QuestionDrawn(t_ns=now, round=number, text=drawn.text, answer=drawn.answer,
                                 accepted=drawn.accepted, comment=drawn.comment, handout=drawn.handout,
                                 source=source))
        out.append(QuestionSource(t_ns=now, round=number, source=source))

    def _play_fortochka(self, r: RoundInPlay, now: int, out: list[Output]) -> None:
        """No question: the point goes by the previous round's answer (000 4.2 д)."""
        rounds = self._game.rounds
        self._game.fortochka_fell = True
        # Seed silent on a fortochka in the first round: with no previous answer nobody scores
        # and the sector is spent, as a club host would rule rather than re-spin a spent envelope.
        to = rounds[-1].result if rounds else None
        out.append(FortochkaPlayed(t_ns=now, round=r.number, sector=r.sector, to=to,
                                   reason={None: "no_previous_round", Side.TEAM: "previous_correct",
                                           Side.CLUB: "previous_wrong"}[to]))
        self._end_round(to, "fortochka", now, out)

    # ------------------------------------------------------------------ host actions

    def _on_host(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        a = ChgkAction
        handler = {
            a.NEW_GAME: self._host_new_game,
            a.DRAW_LOTOTRON: self._host_draw,
            a.START_TIMER: self._host_start_timer,
            a.EARLY_ANSWER: self._host_early_answer,
            a.PLAYER_LEAVES: self._host_player_leaves,
            a.ANSWER_CORRECT: self._host_correct,
            a.ANSWER_WRONG: self._host_wrong,
            a.FORTOCHKA: self._host_fortochka,
            a.EXTRA_TIME: self._host_extra_time,
            a.CLUB_HELP: self._host_club_help,
            a.MOVE_QUESTION: self._host_move_question,
            a.USE_SAVED_MINUTE: self._host_saved_minute,
            a.HINT_FROM_HALL: self._host_hint,
            a.HALL_CORRECT: self._host_hall_correct,
            a.REFILL: self._host_refill,
            a.DECISIVE_ROUND: self._host_decisive,
            a.CANCEL_ROUND: self._host_cancel,
            a.CORRECT_ROUND: self._host_correct_round,
            a.PAUSE: self._host_pause,
            a.RESUME: self._host_resume,
        }[cmd.action]
        handler(cmd, now, out)

    def _host_new_game(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        if cmd.team is not None:
            self._game.team_named(cmd.team)
        game = self._game = self._new_game(cmd.team)
        game.started_at_ns = now
        out.append(TableGameStarted(t_ns=now, stage=self.rules.stage, target=self.rules.target,
                                    team=game.team_view(), players_at_table=game.players,
                                    sectors=game.table.public_view()))
        hidden = game.table.fortochka()
        if hidden is not None:
            out.append(FortochkaPlaced(t_ns=now, sector=hidden))

    def _host_draw(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        """Draw the team that plays now, uniformly from the box (000 2.1)."""
        game = self._game
        actions.check_draw(game, self._box)
        index = self._rng.randrange(len(self._box))
        team = self._box.pop(index)
        self._draws += 1
        game.team = team
        ids = [t.id for t in self.rules.teams]
        out.append(LototronDrawn(t_ns=now, team=team, name=self.rules.teams[ids.index(team)].name,
                                 number=ids.index(team) + 1, seed=self.rules.seed, draw=self._draws,
                                 remaining=tuple(self._box)))

    def _host_start_timer(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        game = self._game
        r = actions.check_start_timer(game)
        length = r.part_ns(self.rules) + r.extra_ns
        r.extra_ns = 0
        game.start_count(r, cmd.at, length, now, out)

    def _host_pause(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        r = actions.check_pause(self._game)
        c = r.count
        assert c is not None
        c.paused_at = min(max(cmd.at, c.fired_at), c.deadline)  # what the hall has heard stands
        out.append(TimerPaused(t_ns=now, round=r.number, part=r.part, paused_at_ns=c.paused_at,
                               remaining_ms=(c.deadline - c.paused_at) / 1e6))

    def _host_resume(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        r = actions.check_resume(self._game)
        c = r.count
        assert c is not None and c.paused_at is not None
        resumed_at = max(cmd.at, c.paused_at)
        held = resumed_at - c.paused_at
        c.deadline += held
        c.held_ns += held
        c.warn_at = None if c.warn_at is None else c.warn_at + held
        c.paused_at = None
        out.append(TimerResumed(t_ns=now, round=r.number, part=r.part, resumed_at_ns=resumed_at,
                                paused_ms=held / 1e6, deadline_ns=c.deadline, warning_ns=c.warn_at))

    def _host_early_answer(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        r = actions.check_early_answer(self._game)
        r.declared_early = True
        self._game.phase = Phase.ANSWER
        out.append(EarlyAnswerDeclared(t_ns=now, round=r.number, part=r.part,
                                       saves_minute=r.early_saves_minute(self.rules)))

    def _host_player_leaves(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        r = actions.check_player_leaves(self._game)
        r.at_table -= 1
        out.append(PlayerLeft(t_ns=now, round=r.number, players_at_table=r.at_table,
                              seconds=r.part_ns(self.rules) / NS_PER_S))

    def _host_correct(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        self._judge(True, now, out)

    def _host_wrong(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        self._judge(False, now, out)

    def _judge(self, correct: bool, now: int, out: list[Output]) -> None:
        game = self._game
        r = actions.check_judge(game)
        # Judging while the count runs is the captain answering before the time is up.
        r.count = None
        r.results.append(correct)
        r.early.append(r.declared_early)
        out.append(AnswerJudged(t_ns=now, round=r.number, part=r.part, parts=r.parts, correct=correct,
                                early=r.declared_early))
        if correct and r.declared_early and r.early_saves_minute(self.rules):
            game.saved_minutes += 1
            out.append(MinuteSaved(t_ns=now, round=r.number, saved_minutes=game.saved_minutes))
        if not correct:
            game.wrong_answers += 1
            self._end_round(Side.CLUB, "wrong", now, out)  # a wrong part ends the sector (003 6.2.2)
        elif r.part < r.parts:
            r.part += 1
            r.declared_early = False
            game.phase = Phase.ASKED
            out.append(NextPart(t_ns=now, round=r.number, part=r.part, parts=r.parts,
                                seconds=r.part_ns(self.rules) / NS_PER_S))
        else:
            self._end_round(Side.TEAM, "correct", now, out)

    def _host_fortochka(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        """The host opened the envelope and it is the fortochka (when its place is not configured)."""
        game = self._game
        r, final, chosen, skipped = actions.check_fortochka(game)
        game.table[r.sector].kind = SectorKind.FORTOCHKA
        game.drop_hall(r.number)
        if not final:
            r.kind = r.played_as = SectorKind.FORTOCHKA
            self._play_fortochka(r, now, out)
            return
        assert chosen is not None
        game.fortochka_fell = True
        game.round = None
        repick = SectorPicked(r.sector, cmd.at, PickSource.HOST)
        self._start_round(chosen, repick, skipped, r.sector, now, out)

    # ------------------------------------------------------------------ help, BINGO, the hall, the late game

    def _host_extra_time(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        help.time_help(self._game, HelpKind.EXTRA_TIME, self.rules.extra_time_ns, cmd.at, now, out)

    def _host_club_help(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        help.time_help(self._game, HelpKind.CLUB_HELP, self.rules.club_help_ns, cmd.at, now, out)

    def _host_saved_minute(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        help.use_saved_minute(self._game, cmd.at, now, out)

    def _host_move_question(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        help.move_question(self._game, cmd, now, out)

    def _host_hint(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        """A hint from the hall: the round is lost and a player leaves for the game (000 6.4)."""
        game = self._game
        r = game.require_round()
        # With one player left nobody can leave; the round is still lost.
        game.players = max(1, game.players - 1)
        out.append(HintFromHall(t_ns=now, round=r.number, players_at_table=game.players))
        self._end_round(Side.CLUB, "hint", now, out)

    def _host_hall_correct(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        hall.record_hall_answer(self._game, cmd, now, out)
        if self._game.phase is Phase.GAME_OVER:
            out.append(views.game_record(self._game, now))  # the latest record wins

    def _host_refill(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        endgame.refill(self._game, cmd, now, out)

    def _host_decisive(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        endgame.take_decisive_round(self._game, now, out)

    def _host_cancel(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        """Withdraw the round in play (a misread top): no score, the envelope is back on its sector."""
        game = self._game
        r = game.require_round()
        game.table[r.sector].played = False
        game.drop_hall(r.number)
        # Help asked for in the cancelled round stays spent: it was asked for.
        game.round, game.phase = None, Phase.READY
        out.append(RoundCancelled(t_ns=now, round=r.number, sector=r.sector))

    def _host_correct_round(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        """The last round's verdict was keyed wrongly: its point goes to the other side."""
        corrections.apply(self._game, cmd.to, cmd.reason, now, out)

    # ------------------------------------------------------------------ rounds and the game

    def _end_round(self, winner: Side | None, reason: str, now: int, out: list[Output]) -> None:
        game = self._game
        r = game.round
        assert r is not None
        if winner is not None:
            game.score[winner] += r.value
        if winner is Side.TEAM and reason != "fortochka":
            game.answer_points += r.value
        record = r.record(winner, reason, game.score_record())
        game.rounds.append(record)
        game.correctable = reason in corrections.VERDICTS
        game.round, game.phase = None, Phase.READY
        out.append(RoundEnded.of(record, now))
        top = max(game.score.values())
        if game.decisive or top >= self.rules.target:
            # The decisive round decides the game whatever the winning score (003 6.4.1).
            game.winner = max(game.score, key=lambda side: (game.score[side], side is Side.TEAM))
            game.phase = Phase.GAME_OVER
            out.append(TableGameOver(t_ns=now, winner=game.winner, score=game.score_record(),
                                     rounds=len(game.rounds)))
            out.append(views.game_record(game, now))

    # ------------------------------------------------------------------ timers

    def _fire_due(self, now: int, out: list[Output]) -> None:
        game = self._game
        r = game.round
        if game.phase is not Phase.DISCUSSION or r is None or r.count is None:
            return
        c = r.count
        if c.paused_at is not None:  # held by the host
            return
        seconds = c.seconds()
        if c.warn_at is not None and now >= c.warn_at:
            c.warn_at = None
            c.fired_at = now
            if now < c.deadline:  # a warning already overtaken by the end is not worth a cue
                out.append(TimerWarning(t_ns=now, round=r.number, part=r.part, deadline_ns=c.deadline,
                                        seconds=seconds, remaining_s=(c.deadline - now) / NS_PER_S))
                out.append(PlayCue(Cue.WARNING))
        if now >= c.deadline:
            r.count = None
            game.phase = Phase.ANSWER
            out.append(TimeUp(t_ns=now, round=r.number, part=r.part, deadline_ns=c.deadline, seconds=seconds))
            out.append(PlayCue(Cue.TIME_UP))
