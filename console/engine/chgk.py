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

The engine reads no clock and does no I/O: ``handle(input, now)`` and ``on_timer(now)``
return outputs, ``next_deadline()`` says when to call ``on_timer``; the only randomness is
the lototron's ``random.Random(rules.seed)``. The same inputs always give the same outputs.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from console.engine.chgk_events import (
    AnswerJudged,
    ConsolationRow,
    DecisiveRoundTaken,
    EarlyAnswerDeclared,
    FortochkaMoved,
    FortochkaPlaced,
    FortochkaPlayed,
    GameRecord,
    HallAnswerRecorded,
    HelpUsed,
    HintFromHall,
    HostCommandRefused,
    Indicators,
    LototronDrawn,
    MinuteSaved,
    NextPart,
    PlayerLeft,
    QuestionDrawn,
    QuestionMoved,
    QuestionNeeded,
    QuestionSource,
    QuestionUnavailable,
    RoundCancelled,
    RoundEnded,
    RoundRecord,
    Score,
    SectorChosen,
    SectorRefilled,
    TableCommandRefused,
    TableGameOver,
    TableGameStarted,
    TeamView,
    TimerExtended,
    TimerStarted,
    TimerWarning,
    TimeUp,
)
from console.engine.chgk_rules import (
    HELP_TITLES,
    TITLES,
    ChgkAction,
    ChgkHost,
    ChgkInput,
    ChgkRules,
    EarlyAnswer,
    HelpKind,
    PickSource,
    SectorKind,
    SectorPicked,
    Side,
    Stage,
    Team,
)
from console.engine.chgk_table import SectorTable
from console.engine.model import NS_PER_S, Cue, Json, Output, PlayCue
from console.engine.question_draw import QuestionDeck, QuestionPool


class Phase(StrEnum):
    READY = "ready"  # between rounds: waiting for a sector
    ASKED = "asked"  # the question (or part) is asked; the count has not started
    DISCUSSION = "discussion"  # the count runs
    ANSWER = "answer"  # time is up, or an early answer was declared: waiting for the verdict
    GAME_OVER = "game_over"


ONE_MINUTE_KINDS = (SectorKind.QUESTION, SectorKind.SECTOR12, SectorKind.SECTOR13)


class _NotAllowed(Exception):
    def __init__(self, why: str, host_only: bool = False, **details: Json) -> None:
        super().__init__(why)
        self.why, self.host_only, self.details = why, host_only, details


@dataclass
class _Count:
    started_at: int
    deadline: int
    warn_at: int | None


@dataclass
class _Round:
    number: int
    sector: int
    kind: SectorKind
    played_as: SectorKind  # blitz is played as superblitz in the decisive round (003 6.4.2)
    envelope: int
    parts: int
    value: int
    seated: int  # players at the table when the round began
    at_table: int
    part: int = 1
    results: list[bool] = field(default_factory=list)
    early: list[bool] = field(default_factory=list)
    declared_early: bool = False
    extra_ns: int = 0  # help time asked for before the count starts
    count: _Count | None = None
    helps: list[str] = field(default_factory=list)


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
        self._reset(rules.table_team)

    def _reset(self, team: str | None) -> None:
        self._team = team
        if team is not None and team in self._box:
            self._box.remove(team)  # a seated team has its game; the box keeps the others
        self._table = SectorTable(self.rules)
        self._score = {Side.TEAM: 0, Side.CLUB: 0}
        self._phase = Phase.READY
        self._round: _Round | None = None
        self._rounds: list[RoundRecord] = []
        self._players = self.rules.table_players
        self._helps_used: set[HelpKind] = set()
        self._saved_minutes = 0
        self._fortochka_fell = False  # played, or revealed and passed over in a final round
        self._decisive = False
        self._hall: dict[tuple[int, int], list[str]] = {}
        self._wrong_answers = 0
        self._answer_points = 0  # table points won by answers (the fortochka's do not count, 000 4.2 д)
        self._winner: Side | None = None

    # ------------------------------------------------------------------ public API

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def score(self) -> dict[str, int]:
        return {side.value: points for side, points in self._score.items()}

    def _score_record(self) -> Score:
        return Score(team=self._score[Side.TEAM], club=self._score[Side.CLUB])

    def handle(self, inp: ChgkInput, now: int) -> list[Output]:
        """Take one input at host time `now`; due timers fire first."""
        out: list[Output] = []
        self._fire_due(now, out)
        local: list[Output] = []
        try:
            if isinstance(inp, SectorPicked):
                self._on_pick(inp, now, local)
            else:
                self._on_host(inp, now, local)
        except _NotAllowed as exc:
            what = "a sector pick" if isinstance(inp, SectorPicked) else repr(inp.action.value)
            action = "pick" if isinstance(inp, SectorPicked) else inp.action.value
            details: dict[str, Json] = {"action": action, "phase": self._phase.value, **exc.details}
            refused = HostCommandRefused if exc.host_only else TableCommandRefused
            local = [refused(t_ns=now, message=f"{what} is not allowed now: {exc.why}", details=details)]
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
        r = self._round
        if self._phase is not Phase.DISCUSSION or r is None or r.count is None:
            return None
        c = r.count
        return c.deadline if c.warn_at is None else min(c.warn_at, c.deadline)

    def snapshot(self, now: int) -> dict[str, Json]:
        """The public state, for the retained MQTT topic and the displays (no fortochka place)."""
        r = self._round
        team = self._team_view()
        return {
            "phase": self._phase.value,
            "stage": self.rules.stage.value,
            "target": self.rules.target,
            "team": None if team is None else {"id": team.id, "name": team.name, "main": team.main},
            "opponent": self.rules.opponent,
            "score": self._score_json(),
            "rounds_played": len(self._rounds),
            "final_round": self._final_round(),
            "decisive_round": self._decisive,
            "players_at_table": r.at_table if r else (1 if self._decisive else self._players),
            "sectors": [{"sector": s.sector, "kind": s.kind.value, "title": s.title, "envelope": s.envelope,
                         "played": s.played} for s in self._table.public_view()],
            "current": self._round_view(r) if r else None,
            "timer": self._timer_view(r, now) if r else None,
            "helps": {k.value: ("used" if k in self._helps_used else "available")
                      for k in sorted(self.rules.helps)},
            "saved_minutes": self._saved_minutes,
            "fortochka_fell": self._fortochka_fell,
            "hall": dict[str, Json](self._hall_points()),
            "winner": self._winner.value if self._winner else None,
        }

    def running_timer(self) -> tuple[str, int] | None:
        """The discussion count a display shows: ("discussion", its deadline), or None."""
        r = self._round
        if r is None or r.count is None:
            return None
        return "discussion", r.count.deadline

    def host_snapshot(self, now: int) -> dict[str, Json]:
        """`snapshot` plus what only the host may see: where the fortochka lies."""
        return {**self.snapshot(now), "fortochka": {"sector": self._table.fortochka(),
                                                    "fell": self._fortochka_fell}}

    # ------------------------------------------------------------------ choosing a sector

    def _on_pick(self, pick: SectorPicked, now: int, out: list[Output]) -> None:
        self._require_ready()
        if pick.sector not in self._table:
            raise _NotAllowed(f"there is no sector {pick.sector} on a table of {self.rules.sectors}",
                              sector=pick.sector)
        chosen, skipped, passed = self._table.resolve(pick.sector, self._final_round())
        if chosen is None:
            raise _NotAllowed("no playable sector is left on the table", sector=pick.sector)
        if passed is not None:
            # Not played in the final round (000 4.2 д); revealed by its fall, it is spent.
            self._table[passed].played = True
            self._fortochka_fell = True
        self._start_round(chosen, pick, skipped, passed, now, out)

    def _start_round(self, number: int, pick: SectorPicked, skipped: list[int], passed: int | None,
                     now: int, out: list[Output]) -> None:
        sector = self._table[number]
        kind = sector.kind
        played_as = SectorKind.SUPERBLITZ if self._decisive and kind is SectorKind.BLITZ else kind
        parts = {SectorKind.BLITZ: self.rules.blitz_parts, SectorKind.SUPERBLITZ: self.rules.blitz_parts,
                 SectorKind.DUPLET: self.rules.duplet_parts, SectorKind.FORTOCHKA: 0}.get(played_as, 1)
        alone = played_as is SectorKind.SUPERBLITZ or self._decisive  # 003 6.2.3, 6.4; 000 4.2 б
        seated = 1 if alone else self._players
        sector.played = True
        r = _Round(number=len(self._rounds) + 1, sector=sector.number, kind=kind, played_as=played_as,
                   envelope=sector.envelope, parts=parts, seated=seated, at_table=seated,
                   value=self.rules.decisive_round_points if self._decisive else 1)
        self._round = r
        self._phase = Phase.ASKED
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
            seconds=None if kind is SectorKind.FORTOCHKA else self._part_ns(r) / NS_PER_S,
            value=r.value,
            players_at_table=r.at_table,
            final_round=self._final_round(),
            decisive=self._decisive,
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
        out.append(QuestionDrawn(t_ns=now, round=number, text=drawn.text, answer=drawn.answer,
                                 accepted=drawn.accepted, comment=drawn.comment, handout=drawn.handout,
                                 source=source))
        out.append(QuestionSource(t_ns=now, round=number, source=source))

    def _play_fortochka(self, r: _Round, now: int, out: list[Output]) -> None:
        """No question: the point goes by the previous round's answer (000 4.2 д)."""
        self._fortochka_fell = True
        # Seed silent on a fortochka in the first round: with no previous answer nobody scores
        # and the sector is spent, as a club host would rule rather than re-spin a spent envelope.
        to = self._rounds[-1].result if self._rounds else None
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
        }[cmd.action]
        handler(cmd, now, out)

    def _host_new_game(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        if cmd.team is not None:
            self._team_named(cmd.team)
        self._reset(cmd.team)
        out.append(TableGameStarted(t_ns=now, stage=self.rules.stage, target=self.rules.target,
                                    team=self._team_view(), players_at_table=self._players,
                                    sectors=self._table.public_view()))
        hidden = self._table.fortochka()
        if hidden is not None:
            out.append(FortochkaPlaced(t_ns=now, sector=hidden))

    def _host_draw(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        """Draw the team that plays now, uniformly from the box (000 2.1)."""
        if not self.rules.teams:
            raise _NotAllowed("no teams are configured for the lototron")
        if self._rounds or self._round is not None or self._phase is Phase.GAME_OVER:
            raise _NotAllowed("the team is drawn at the start of a game, before its first round (000 2.1)")
        if self._team is not None:
            raise _NotAllowed(f"team {self._team!r} is already at the table", team=self._team)
        if not self._box:
            raise _NotAllowed("every team has been drawn already")
        index = self._rng.randrange(len(self._box))
        team = self._box.pop(index)
        self._draws += 1
        self._team = team
        ids = [t.id for t in self.rules.teams]
        out.append(LototronDrawn(t_ns=now, team=team, name=self.rules.teams[ids.index(team)].name,
                                 number=ids.index(team) + 1, seed=self.rules.seed, draw=self._draws,
                                 remaining=tuple(self._box)))

    def _host_start_timer(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        r = self._require_round()
        if self._phase is Phase.DISCUSSION:
            raise _NotAllowed("the count is already running")
        if self._phase is Phase.ANSWER:
            raise _NotAllowed("an early answer was declared: judge it" if r.declared_early
                              else "the time is up: judge the answer")
        length = self._part_ns(r) + r.extra_ns
        r.extra_ns = 0
        self._start_count(r, cmd.at, length, now, out)

    def _start_count(self, r: _Round, at: int, length: int, now: int, out: list[Output]) -> None:
        r.count = _Count(started_at=at, deadline=at + length, warn_at=None)
        self._arm_warning(r.count, at)
        self._phase = Phase.DISCUSSION
        out.append(TimerStarted(t_ns=now, round=r.number, part=r.part, parts=r.parts, started_at_ns=at,
                                deadline_ns=r.count.deadline, warning_ns=r.count.warn_at,
                                seconds=length / NS_PER_S))
        out.append(PlayCue(Cue.START))

    def _arm_warning(self, c: _Count, after: int) -> None:
        """The «10 секунд» warning, unless the count is too short to have one."""
        warn = c.deadline - self.rules.warning_before_ns
        c.warn_at = warn if self.rules.warning_before_ns > 0 and warn > after else None

    def _host_early_answer(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        r = self._require_round()
        if self._phase is not Phase.ASKED:
            raise _NotAllowed("the captain declares an early answer before the count starts (003 6.1.5)")
        r.declared_early = True
        self._phase = Phase.ANSWER
        out.append(EarlyAnswerDeclared(t_ns=now, round=r.number, part=r.part,
                                       saves_minute=self._early_saves_minute(r)))

    def _early_saves_minute(self, r: _Round) -> bool:
        # 003 6.1.5 saves «the minute»: only a one-minute question has one to save.
        return self.rules.early_answer is EarlyAnswer.SAVES_MINUTE and r.played_as in ONE_MINUTE_KINDS

    def _host_player_leaves(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        r = self._require_round()
        if r.played_as is not SectorKind.ZEITNOT:
            raise _NotAllowed("players leave the table for time only on «цейтнот» (000 4.2 в)")
        if self._phase is not Phase.ASKED:
            raise _NotAllowed("players leave before the count starts (000 4.2 в)")
        if r.at_table <= 1:
            raise _NotAllowed("one player is left at the table")
        r.at_table -= 1
        out.append(PlayerLeft(t_ns=now, round=r.number, players_at_table=r.at_table,
                              seconds=self._part_ns(r) / NS_PER_S))

    def _host_correct(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        self._judge(True, now, out)

    def _host_wrong(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        self._judge(False, now, out)

    def _judge(self, correct: bool, now: int, out: list[Output]) -> None:
        r = self._require_round()
        if self._phase is Phase.ASKED:
            raise _NotAllowed("the discussion has not started: «Время!» (start_timer) "
                              "or an early answer comes first")
        # Judging while the count runs is the captain answering before the time is up.
        r.count = None
        r.results.append(correct)
        r.early.append(r.declared_early)
        out.append(AnswerJudged(t_ns=now, round=r.number, part=r.part, parts=r.parts, correct=correct,
                                early=r.declared_early))
        if correct and r.declared_early and self._early_saves_minute(r):
            self._saved_minutes += 1
            out.append(MinuteSaved(t_ns=now, round=r.number, saved_minutes=self._saved_minutes))
        if not correct:
            self._wrong_answers += 1
            self._end_round(Side.CLUB, "wrong", now, out)  # a wrong part ends the sector (003 6.2.2)
        elif r.part < r.parts:
            r.part += 1
            r.declared_early = False
            self._phase = Phase.ASKED
            out.append(NextPart(t_ns=now, round=r.number, part=r.part, parts=r.parts,
                                seconds=self._part_ns(r) / NS_PER_S))
        else:
            self._end_round(Side.TEAM, "correct", now, out)

    def _host_fortochka(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        """The host opened the envelope and it is the fortochka (when its place is not configured)."""
        r = self._require_round()
        if self._fortochka_fell:
            raise _NotAllowed("the fortochka falls once a game and has fallen already (000 4.2 д)")
        hidden = self._table.fortochka()
        if hidden is not None:
            raise _NotAllowed(f"the fortochka lies on sector {hidden}", host_only=True)
        if self._phase is not Phase.ASKED or r.part != 1 or r.kind is not SectorKind.QUESTION:
            raise _NotAllowed("only a numbered envelope just opened can be the fortochka (000 4.2 д)")
        final = self._final_round()
        # In the final round the next sector clockwise is played instead (000 4.2 д); this
        # one, revealed, stays spent. The search starts on it, so it is among the skipped.
        chosen, skipped, _ = self._table.resolve(r.sector, True)
        if final and chosen is None:
            raise _NotAllowed("the fortochka is not played in the final round and no other sector is left")
        self._table[r.sector].kind = SectorKind.FORTOCHKA
        self._drop_hall(r.number)
        if not final:
            r.kind = r.played_as = SectorKind.FORTOCHKA
            self._play_fortochka(r, now, out)
            return
        assert chosen is not None
        self._fortochka_fell = True
        self._round = None
        repick = SectorPicked(r.sector, cmd.at, PickSource.HOST)
        self._start_round(chosen, repick, skipped, r.sector, now, out)

    # ------------------------------------------------------------------ help, BINGO, the hall

    def _host_extra_time(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        self._time_help(HelpKind.EXTRA_TIME, self.rules.extra_time_ns, cmd.at, now, out)

    def _host_club_help(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        self._time_help(HelpKind.CLUB_HELP, self.rules.club_help_ns, cmd.at, now, out)

    def _host_saved_minute(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        if self._saved_minutes < 1:
            raise _NotAllowed("no minute has been saved by an early answer (003 6.1.5)")
        self._time_help(None, self.rules.saved_minute_ns, cmd.at, now, out)

    def _check_help(self, kind: HelpKind) -> None:
        if kind not in self.rules.helps:
            raise _NotAllowed(f"{HELP_TITLES[kind]} is not offered at this table")
        if kind in self._helps_used:
            raise _NotAllowed(f"{HELP_TITLES[kind]} is once a game and was used already (000 6.1-6.2)")
        team, club = self._score[Side.TEAM], self._score[Side.CLUB]
        if kind in self.rules.help_only_when_behind and team >= club:
            raise _NotAllowed(f"only a team behind in the score may ask for it (000 6.1-6.2, 003 6.3.3); "
                              f"the score is {team}:{club}", score=self._score_json())

    def _time_help(self, kind: HelpKind | None, length: int, at: int, now: int, out: list[Output]) -> None:
        """Extra discussion time: added to the coming count, to the running one, or a new count."""
        r = self._require_round()
        if r.played_as is SectorKind.ZEITNOT:
            raise _NotAllowed("help never works on «цейтнот» (000 6.1-6.2)")
        if r.declared_early:
            raise _NotAllowed("an early answer was declared: there is no discussion to extend")
        if kind is not None:
            self._check_help(kind)
            self._helps_used.add(kind)
        else:
            self._saved_minutes -= 1
        label = kind.value if kind else "saved_minute"
        r.helps.append(label)
        applied = {Phase.ASKED: "added_to_count", Phase.DISCUSSION: "extended", Phase.ANSWER: "new_count"}
        how = applied[self._phase]
        out.append(HelpUsed(t_ns=now, help=label, title=HELP_TITLES[kind] if kind else "Сэкономленная минута",
                            round=r.number, part=r.part, seconds=length / NS_PER_S, applied=how,
                            saved_minutes=self._saved_minutes))
        if self._phase is Phase.ASKED:
            r.extra_ns += length
        elif self._phase is Phase.DISCUSSION and r.count is not None:
            r.count.deadline += length
            self._arm_warning(r.count, now)
            out.append(TimerExtended(t_ns=now, round=r.number, part=r.part, deadline_ns=r.count.deadline,
                                     warning_ns=r.count.warn_at,
                                     seconds=(r.count.deadline - r.count.started_at) / NS_PER_S))
        else:  # the time was up: the extra time is a new count from the host's key
            self._start_count(r, at, length, now, out)

    def _host_move_question(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        """BINGO: one envelope moves on the table before a round (003 6.3.1)."""
        self._require_ready()
        if self._final_round():
            raise _NotAllowed("not before a round that may be the last (003 6.3.1)")
        self._check_help(HelpKind.MOVE_QUESTION)
        a, b = self._sector_arg(cmd.sector, "sector"), self._sector_arg(cmd.to_sector, "to_sector")
        if a == b:
            raise _NotAllowed("the envelope must move to another sector")
        if self._table[a].played:
            raise _NotAllowed(f"sector {a} was played: there is no envelope on it", sector=a)
        self._helps_used.add(HelpKind.MOVE_QUESTION)
        hidden = self._table.fortochka()
        self._table.swap(a, b)
        out.append(QuestionMoved(t_ns=now, from_sector=a, to_sector=b))
        if hidden in (a, b):
            out.append(FortochkaMoved(t_ns=now, sector=self._table.fortochka()))

    def _host_hint(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        """A hint from the hall: the round is lost and a player leaves for the game (000 6.4)."""
        r = self._require_round()
        # With one player left nobody can leave; the round is still lost.
        self._players = max(1, self._players - 1)
        out.append(HintFromHall(t_ns=now, round=r.number, players_at_table=self._players))
        self._end_round(Side.CLUB, "hint", now, out)

    def _host_hall_correct(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        """A hall team's written answer was right (000 3.6-3.7); allowed after the game too."""
        ids = [t.id for t in self.rules.teams]
        if cmd.team is None:
            raise _NotAllowed("name the hall team (team)")
        self._team_named(cmd.team)
        if cmd.team == self._team:
            raise _NotAllowed(f"{cmd.team!r} is at the table, not in the hall", team=cmd.team)
        current = self._round
        last = current.number if current else len(self._rounds)
        number = cmd.round if cmd.round is not None else last
        if not 1 <= number <= last:
            raise _NotAllowed(f"round {number} has not been played", round=number)
        if current is not None and number == current.number:
            asked, kind = current.part, current.kind
        else:
            record = self._rounds[number - 1]
            asked, kind = record.asked, record.kind
        part = cmd.part if cmd.part is not None else asked
        if kind is SectorKind.FORTOCHKA or not 1 <= part <= asked:
            raise _NotAllowed(f"round {number} has no question {part} to answer", round=number, part=part)
        if cmd.team in self._hall.get((number, part), []):
            raise _NotAllowed(f"{cmd.team!r} already has this answer counted", round=number, part=part)
        self._hall.setdefault((number, part), []).append(cmd.team)
        name = self.rules.teams[ids.index(cmd.team)].name
        out.append(HallAnswerRecorded(t_ns=now, team=cmd.team, name=name, round=number, part=part,
                                      hall_points=self._hall_points()[cmd.team]))
        if self._phase is Phase.GAME_OVER:
            out.append(self._record(now))  # the latest record wins

    def _host_refill(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        """In the final, new envelopes go on freed sectors up to round 4 inclusive (000 3.8.1)."""
        if self.rules.stage is not Stage.FINAL:
            raise _NotAllowed(f"refills are for the final only (000 3.8.1); this is a "
                              f"{self.rules.stage.value}", stage=self.rules.stage.value)
        self._require_ready()
        played = len(self._rounds)
        if not 1 <= played <= self.rules.refill_until_round:
            raise _NotAllowed(f"refills follow rounds 1..{self.rules.refill_until_round} (000 3.8.1); "
                              f"{played} rounds are played", rounds_played=played)
        number = self._sector_arg(cmd.sector, "sector")
        if not self._table[number].played:
            raise _NotAllowed(f"sector {number} still holds its envelope", sector=number)
        envelope = self._table.refill(number)
        out.append(SectorRefilled(t_ns=now, sector=number, envelope=envelope, after_round=played))

    def _host_decisive(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
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
        at = self.rules.decisive_round_at
        if at is None:
            raise _NotAllowed("this table plays no decisive round (003 6.4)")
        self._require_ready()
        if self._decisive:
            raise _NotAllowed("the decisive round is already taken")
        team, club = self._score[Side.TEAM], self._score[Side.CLUB]
        if team != at:
            raise _NotAllowed(f"the team takes it at {at} points (003 6.4); it has {team}",
                              score=self._score_json())
        left = self._table.unplayed()
        if self._final_round() and self._table.fortochka() is not None:
            left -= 1  # the fortochka is passed over in a round that may be the last (000 4.2 д)
        if left == 0:
            raise _NotAllowed("no sector is left on the table to play it on", score=self._score_json())
        if team + left > club:
            raise _NotAllowed(f"only when the team cannot overtake the opponents without it (003 6.4): "
                              f"at {team}:{club} with {left} sectors left it still can",
                              score=self._score_json())
        before = self._score_record()
        self._score = {Side.TEAM: 0, Side.CLUB: 0}
        self._decisive = True
        out.append(DecisiveRoundTaken(t_ns=now, score_before=before, points=self.rules.decisive_round_points,
                                      players_at_table=1))

    def _host_cancel(self, cmd: ChgkHost, now: int, out: list[Output]) -> None:
        """Withdraw the round in play (a misread top): no score, the envelope is back on its sector."""
        r = self._require_round()
        self._table[r.sector].played = False
        self._drop_hall(r.number)
        # Help asked for in the cancelled round stays spent: it was asked for.
        self._round, self._phase = None, Phase.READY
        out.append(RoundCancelled(t_ns=now, round=r.number, sector=r.sector))

    # ------------------------------------------------------------------ rounds and the game

    def _end_round(self, winner: Side | None, reason: str, now: int, out: list[Output]) -> None:
        r = self._round
        assert r is not None
        if winner is not None:
            self._score[winner] += r.value
        if winner is Side.TEAM and reason != "fortochka":
            self._answer_points += r.value
        record = RoundRecord(
            round=r.number, sector=r.sector, envelope=r.envelope, kind=r.kind, played_as=r.played_as,
            result=winner, reason=reason, value=r.value, parts=tuple(r.results), early=tuple(r.early),
            asked=0 if r.kind is SectorKind.FORTOCHKA else r.part, helps=tuple(r.helps),
            score=self._score_record(),
        )
        self._rounds.append(record)
        self._round, self._phase = None, Phase.READY
        out.append(RoundEnded.of(record, now))
        top = max(self._score.values())
        if self._decisive or top >= self.rules.target:
            # The decisive round decides the game whatever the winning score (003 6.4.1).
            self._winner = max(self._score, key=lambda side: (self._score[side], side is Side.TEAM))
            self._phase = Phase.GAME_OVER
            out.append(TableGameOver(t_ns=now, winner=self._winner, score=self._score_record(),
                                     rounds=len(self._rounds)))
            out.append(self._record(now))

    def _record(self, now: int) -> GameRecord:
        """The game for the tournament tables: score, rounds, 000 1.6.1 and 1.7 figures."""
        won = {row.kind for row in self._rounds if row.result is Side.TEAM}
        # 000 1.6.1 а-г, in order of weight; д (unused help) is counted apart
        indicators = Indicators(won_superblitz=SectorKind.SUPERBLITZ in won,
                                won_zeitnot=SectorKind.ZEITNOT in won, won_duplet=SectorKind.DUPLET in won,
                                won_sector12=SectorKind.SECTOR12 in won,
                                unused_help=len(self.rules.helps - self._helps_used))
        return GameRecord(
            t_ns=now, stage=self.rules.stage, target=self.rules.target, team=self._team,
            opponent=self.rules.opponent, score=self._score_record(), winner=self._winner,
            decisive_round=self._decisive, rounds=tuple(self._rounds), indicators=indicators,
            table_points=self._answer_points, wrong_answers=self._wrong_answers,
            saved_minutes=self._saved_minutes,
            consolation=consolation(self.rules.teams, self._hall_points(), self._team,
                                    self._answer_points, self._wrong_answers),
        )

    def _final_round(self) -> bool:
        """A round that may be the last: either side is a point from winning, or the decisive one."""
        return self._decisive or max(self._score.values()) >= self.rules.target - 1

    # ------------------------------------------------------------------ timers

    def _fire_due(self, now: int, out: list[Output]) -> None:
        r = self._round
        if self._phase is not Phase.DISCUSSION or r is None or r.count is None:
            return
        c = r.count
        seconds = (c.deadline - c.started_at) / NS_PER_S
        if c.warn_at is not None and now >= c.warn_at:
            c.warn_at = None
            if now < c.deadline:  # a warning already overtaken by the end is not worth a cue
                out.append(TimerWarning(t_ns=now, round=r.number, part=r.part, deadline_ns=c.deadline,
                                        seconds=seconds, remaining_s=(c.deadline - now) / NS_PER_S))
                out.append(PlayCue(Cue.WARNING))
        if now >= c.deadline:
            r.count = None
            self._phase = Phase.ANSWER
            out.append(TimeUp(t_ns=now, round=r.number, part=r.part, deadline_ns=c.deadline, seconds=seconds))
            out.append(PlayCue(Cue.TIME_UP))

    def _part_ns(self, r: _Round) -> int:
        """The discussion of one question of the round (000 3.3, 4.2; 003 6.1.2, 6.2.2)."""
        rules = self.rules
        kind = r.played_as
        if kind in (SectorKind.BLITZ, SectorKind.SUPERBLITZ):
            return rules.blitz_part_ns
        if kind is SectorKind.DUPLET:
            return rules.duplet_part_ns
        if kind is SectorKind.SECTOR13:
            return rules.sector13_ns
        if kind is SectorKind.ZEITNOT:
            if r.at_table == 1:
                return rules.discussion_ns
            left = r.seated - r.at_table
            return min(rules.discussion_ns, rules.zeitnot_base_ns + left * rules.zeitnot_step_ns)
        return rules.discussion_ns

    # ------------------------------------------------------------------ checks and views

    def _require_ready(self) -> None:
        if self._phase is Phase.GAME_OVER:
            raise _NotAllowed("the game is over (new_game starts another)")
        r = self._round
        if r is not None:
            raise _NotAllowed(f"round {r.number} is in play on sector {r.sector} (finish or cancel it first)")

    def _require_round(self) -> _Round:
        if self._phase is Phase.GAME_OVER:
            raise _NotAllowed("the game is over (new_game starts another)")
        if self._round is None:
            raise _NotAllowed("no round is in play (a sector is picked first)")
        return self._round

    def _sector_arg(self, value: int | None, name: str) -> int:
        if value is None:
            raise _NotAllowed(f"name the sector ({name})")
        if value not in self._table:
            raise _NotAllowed(f"there is no sector {value} on a table of {self.rules.sectors}",
                              field=name, value=value)
        return value

    def _team_named(self, team: str) -> None:
        if team not in {t.id for t in self.rules.teams}:
            raise _NotAllowed(f"there is no team {team!r}", team=team)

    def _team_view(self) -> TeamView | None:
        if self._team is None:
            return None
        team = next(t for t in self.rules.teams if t.id == self._team)
        return TeamView(id=team.id, name=team.name, main=team.main)

    def _score_json(self) -> dict[str, Json]:
        return {side.value: points for side, points in self._score.items()}

    def _round_view(self, r: _Round) -> dict[str, Json]:
        return {"round": r.number, "sector": r.sector, "kind": r.kind.value, "played_as": r.played_as.value,
                "title": TITLES[r.played_as], "envelope": r.envelope, "part": r.part, "parts": r.parts,
                "value": r.value, "early": r.declared_early, "players_at_table": r.at_table,
                "seconds": (self._part_ns(r) + r.extra_ns) / NS_PER_S, "results": list[Json](r.results)}

    def _timer_view(self, r: _Round, now: int) -> dict[str, Json] | None:
        c = r.count
        if c is None:
            return None
        return {"kind": "discussion", "started_at_ns": c.started_at, "deadline_ns": c.deadline,
                "seconds": (c.deadline - c.started_at) / NS_PER_S,
                "remaining_ms": max(0, (c.deadline - now) // 1_000_000)}

    def _drop_hall(self, number: int) -> None:
        for key in [k for k in self._hall if k[0] == number]:
            del self._hall[key]

    def _hall_points(self) -> dict[str, int]:
        points = {t.id: 0 for t in self.rules.teams}
        for teams in self._hall.values():
            for team in teams:
                points[team] += 1
        return points


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
