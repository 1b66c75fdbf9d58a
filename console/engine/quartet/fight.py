"""The «Эрудит-квартет» fight (seed 004 §III): rounds, themes, seats, penalties, places.

Theory of operation: a fight is up to four teams, each on one button (its seat). Rounds follow
``rules.rounds``; a round has four themes (3.3). ``before_round`` --start_round--> ``between_themes``
(the host names themes and the teams assign their players, against the minute or the 20 s the
round type gives, 3.6) --start_theme--> ``theme``: a fresh «Своя игра» referee (`SvoyaReferee`,
used through its public API) judges the theme's five questions with the teams' seats as its
players (App.1-11); the referee's events are passed on, and its ``game_over`` ends the theme
(`ThemeEnded`). After the last theme the places are ranked (`quartet_places.rank`): when a tie
needs a shoot-out the fight waits in ``shootout_due`` for that theme (named, a player chosen in
20 s, played by the tied teams only, 3.10-3.11), else it is ``over`` (`FightOver`).

What the fight keeps of each theme is every answer of each team (the question, its value, the
points) and the penalties, so a voided answer (3.5) is simply left out of the sums; a team's
result is the sum over the themes (3.9). A refused command is a `CommandRefused` naming the
rule. Like every engine it reads no clock and does no I/O: ``handle_all(inputs, now)``,
``on_timer(now)``, ``next_deadline()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from console.engine.corrections import AdjustScore, Correction, Reverse, Undo
from console.engine.events import refusal
from console.engine.model import Cue, Host, HostAction, Input, Json, Output, PlayCue, Press, SourceLink
from console.engine.names import name_refusal
from console.engine.quartet import views
from console.engine.quartet.events import (
    AssignTimeUp,
    FightOver,
    FightStarted,
    MemberRenamed,
    PenaltyGiven,
    PlaceRecord,
    PlayersAssigned,
    PresenceChanged,
    RoundStarted,
    Seat,
    ShootoutNeeded,
    ThemeCorrected,
    ThemeEnded,
    ThemeNamed,
    ThemeStarted,
)
from console.engine.quartet.places import Places, Shootout, Tally, rank
from console.engine.quartet.round import RoundState, check_choice, check_order, not_a_player
from console.engine.quartet.rules import (
    PLAYERS_PER_ROUND,
    ROUND_RU,
    THEMES_PER_ROUND,
    FightPhase,
    Penalty,
    QuartetAction,
    QuartetHost,
    QuartetRules,
    QuartetTeam,
    RoundType,
)
from console.engine.quartet.themes import Answer, ThemeRecord
from console.engine.refusals import Reason, Why, why
from console.engine.svoya.events import (
    AnswerJudged,
    GameOver,
    JudgementReversed,
    JudgementUndone,
    QuestionStarted,
    ScoreAdjusted,
)
from console.engine.svoya.referee import SvoyaReferee
from console.engine.svoya.rules import PackTheme, Player

__all__ = ["FightPhase", "QuartetFight", "QuartetInput"]

QuartetInput = Input | SourceLink | Correction | QuartetHost


class QuartetFight:
    """One «Эрудит-квартет» fight. See the module docstring for the contract."""

    def __init__(self, rules: QuartetRules) -> None:
        self.rules = rules
        self._teams = {t.id: t for t in rules.teams}
        self._pads = {t.pad: t for t in rules.teams}
        self._lost: dict[str, int] = {}  # button sources lost, since when (a new fight too)
        self._reset()

    def _reset(self) -> None:
        self._phase = FightPhase.BEFORE_ROUND
        self._present: dict[str, set[str]] = {t.id: set(t.players) for t in self.rules.teams}
        self._warnings: dict[str, int] = {t.id: 0 for t in self.rules.teams}
        self._rounds_started = 0
        self._round: RoundState | None = None
        self._theme_index = 0  # the round's next theme (0-based)
        self._next_name: str | None = None  # the next theme's name (half-dark, dark, shoot-out)
        self._deadline: int | None = None  # the assignment's minute or 20 s (3.6)
        self._deadline_passed = False  # it ran out: later assignments are marked late
        self._themes: list[ThemeRecord] = []
        self._theme: ThemeRecord | None = None  # the theme being played
        self._referee: SvoyaReferee | None = None
        # The theme just played and its referee, until the next theme starts: an appeal is heard
        # right after a theme, before the next one (4.1), by that theme's referee.
        self._appeal: tuple[ThemeRecord, SvoyaReferee] | None = None
        self._question: tuple[int, int] | None = None  # (number, value) of the theme's current question
        self._shootouts: list[Shootout] = []
        self._shootout_seats: dict[str, str] = {}
        self._places: Places | None = None

    # ------------------------------------------------------------------ public API

    @property
    def phase(self) -> FightPhase:
        return self._phase

    @property
    def referee(self) -> SvoyaReferee | None:
        """The «Своя игра» referee of the theme in play, None between themes."""
        return self._referee

    def tallies(self) -> dict[str, Tally]:
        """Each team's fight so far, the theme in play included (3.9-3.10); shoot-outs are not
        counted."""
        themes = self._themes if self._theme is None else [*self._themes, self._theme]
        out: dict[str, Tally] = {}
        for team in self._teams:
            total = plus = 0
            taken: dict[int, int] = {}
            for theme in themes:
                if theme.shootout:
                    continue
                total += theme.score(team)
                for a in theme.counted(team):
                    if a.delta > 0:
                        plus += a.delta
                        taken[a.value] = taken.get(a.value, 0) + 1
            out[team] = Tally(total=total, plus=plus, taken=taken)
        return out

    def places(self) -> Places:
        # Taken at 50, at 40, ... (3.10): every value a question may have, a pack's too.
        values = {*self.rules.svoya.values, *(c.value for t in self.rules.pack for c in t.cards)}
        return rank(self.tallies(), self.rules.stage, sorted(values), self._shootouts, self.rules.seed)

    def handle(self, inp: QuartetInput, now: int) -> list[Output]:
        return self.handle_all((inp,), now)

    def handle_all(self, inputs: Sequence[QuartetInput], now: int) -> list[Output]:
        """Inputs that arrived together at `now`. Consecutive presses, watermarks and «Своя
        игра» host actions go to the theme's referee in one batch, so a tie inside one scan is
        seen whole (see `SvoyaReferee.handle_all`)."""
        out: list[Output] = []
        self._timers(now, out)
        batch: list[Input | SourceLink | Correction] = []
        for inp in inputs:
            if isinstance(inp, SourceLink):  # kept for the next theme's referee too
                if inp.up:
                    self._lost.pop(inp.source, None)
                else:
                    self._lost.setdefault(inp.source, inp.at)
                batch.append(inp)
            elif isinstance(inp, QuartetHost):
                self._to_referee(batch, now, out)
                batch = []
                self._on_host(inp, now, out)
            elif isinstance(inp, Host | Undo) and _action_of(inp) in views.NOT_THE_FIGHTS:
                # The fight goes by its rounds and themes, and its theme records follow the
                # judgements: these «Своя игра» actions are not the fight's.
                out.append(refusal(now, _action_of(inp), why(Why.NO_SUCH_ACTION_QUARTET), self._phase.value))
            elif isinstance(inp, Host) and inp.action is HostAction.NEW_GAME:
                self._to_referee(batch, now, out)
                batch = []
                self._on_host(QuartetHost(QuartetAction.NEW_FIGHT, inp.at), now, out)
            else:
                batch.append(inp)
        self._to_referee(batch, now, out)
        return out

    def on_timer(self, now: int) -> list[Output]:
        out: list[Output] = []
        self._timers(now, out)
        return out

    def next_deadline(self) -> int | None:
        deadlines = [d for d in (self._deadline,
                                 None if self._referee is None else self._referee.next_deadline())
                     if d is not None]
        return min(deadlines) if deadlines else None

    def running_timer(self) -> tuple[str, int] | None:
        if self._referee is not None:
            return self._referee.running_timer()
        if self._deadline is not None:
            return "assign", self._deadline
        return None

    # ------------------------------------------------------------------ the theme's referee

    def _timers(self, now: int, out: list[Output]) -> None:
        if self._deadline is not None and now >= self._deadline:
            self._deadline = None
            self._deadline_passed = True
            out.append(PlayCue(Cue.TIME_UP))
            out.append(AssignTimeUp(t_ns=now, round=self._slot()[0], theme=self._deadline_theme(),
                                    missing=tuple(self._missing())))
        if self._referee is not None:
            self._referee_out(self._referee.on_timer(now), now, out)

    def _to_referee(self, batch: list[Input | SourceLink | Correction], now: int, out: list[Output]) -> None:
        if not batch:
            return
        ref, theme = self._referee, self._theme
        if self._appeal is not None and any(isinstance(h, AdjustScore | Reverse) for h in batch):
            # A correction before the next theme's reading starts is the theme just played's:
            # an appeal (4.1); the new theme has judged nothing yet.
            last, last_ref = self._appeal
            for h in batch:
                if isinstance(h, AdjustScore | Reverse):
                    self._appeal_out(last, last_ref.handle_all([h], now), now, out)
            batch = [h for h in batch if not isinstance(h, AdjustScore | Reverse)]
        if ref is None or theme is None:
            # Presses between themes count for nothing (nobody sits at the table); a host key
            # is refused, saying so.
            for h in batch:
                if isinstance(h, Undo):
                    # The theme's last judgement ended it: its record and the totals went on.
                    out.append(refusal(now, h.ACTION, why(Why.THEME_OVER_REVERSE_OR_APPEAL),
                                       self._phase.value))
                elif isinstance(h, Host | AdjustScore | Reverse):
                    action = h.action.value if isinstance(h, Host) else h.ACTION.value
                    out.append(refusal(now, action, why(Why.THEME_NOT_IN_PLAY), self._phase.value))
            return
        # A seat whose team plays no player in this theme (3.8) is not at the table.
        inputs = [i for i in batch if not (isinstance(i, Press) and i.pad in self._pads
                                           and self._pads[i.pad].id not in theme.seats)]
        if inputs:
            self._referee_out(ref.handle_all(inputs, now), now, out)

    def _referee_out(self, outputs: list[Output], now: int, out: list[Output]) -> None:
        theme = self._theme
        assert theme is not None
        over = False
        for o in outputs:
            match o:
                case QuestionStarted():
                    self._question = (o.number, o.value)
                    self._appeal = None  # the reading of this theme starts: too late for one (4.1)
                case AnswerJudged() if o.player in theme.seats and self._question is not None:
                    answer = Answer(self._question[0], o.value, o.delta)
                    theme.answers.setdefault(o.player, []).append(answer)
                case JudgementReversed() | ScoreAdjusted():
                    _correct(theme, o)
                case JudgementUndone() if o.player in theme.seats:
                    _undo(theme, o)
                case GameOver():
                    over = True
                    continue  # the theme's end is ThemeEnded
            out.append(o)
        if over:
            self._end_theme(now, out)

    def _appeal_out(self, theme: ThemeRecord, outputs: list[Output], now: int, out: list[Output]) -> None:
        """The theme just played, corrected on appeal (4.1-4.3): its points, the totals and, once
        the places are out, the places again."""
        reasons = []
        for o in outputs:
            if isinstance(o, JudgementReversed | ScoreAdjusted):
                _correct(theme, o)
                reasons.append(o.reason)
            if not isinstance(o, GameOver):
                out.append(o)
        if reasons:
            self._theme_corrected(theme, reasons[-1], now, out)

    def _appeal_upheld(self, cmd: QuartetHost, now: int, out: list[Output]) -> Reason | None:
        """4.1 with 3.10: the team's answer to a question of the theme just played was right (a
        dual answer): its minus goes and its plus comes, and it counts as that question taken
        in the total without minuses and the count by value (the tie-break indicators)."""
        if self._appeal is None:
            return why(Why.APPEAL_NOWHERE)
        theme = self._appeal[0]
        team = cmd.team or ""
        if team not in theme.seats:
            return why(Why.APPEAL_TEAM_NOT_IN_THEME, team=team, theme=theme.name,
                       seats=", ".join(theme.seats))
        if cmd.question is None or not cmd.reason:
            return why(Why.APPEAL_NEEDS_QUESTION)
        answers = [a for a in theme.answers.get(team, []) if a.question == cmd.question]
        if not answers:
            return why(Why.APPEAL_TEAM_DID_NOT_ANSWER, team=team, question=cmd.question, theme=theme.name)
        if any(a.delta > 0 for a in answers):
            return why(Why.APPEAL_ALREADY_COUNTED, team=team, question=cmd.question)
        for a in answers:
            a.delta = a.value  # the answer judged wrong is right: −value becomes +value
        self._theme_corrected(theme, cmd.reason, now, out)
        return None

    def _theme_corrected(self, theme: ThemeRecord, reason: str, now: int, out: list[Output]) -> None:
        """Say the corrected theme's points and the totals and, once the places are out, the
        places again."""
        scores = {t: theme.score(t) for t in theme.seats}
        if theme.shootout:
            self._shootouts[-1] = Shootout(teams=frozenset(theme.seats), scores=scores)
        out.append(ThemeCorrected(t_ns=now, round=theme.round, theme=theme.number, name=theme.name,
                                  shootout=theme.shootout, scores=scores, totals=self._totals(),
                                  reason=reason))
        if self._phase in (FightPhase.OVER, FightPhase.SHOOTOUT_DUE):
            pending = self._pending_teams()
            self._rank(now, out)
            if self._pending_teams() != pending:  # another shoot-out is due now: set up afresh
                self._shootout_seats, self._next_name, self._deadline = {}, None, None

    # ------------------------------------------------------------------ host commands

    def _on_host(self, cmd: QuartetHost, now: int, out: list[Output]) -> None:
        handler = {
            QuartetAction.NEW_FIGHT: self._new_fight,
            QuartetAction.START_ROUND: self._start_round,
            QuartetAction.NAME_THEME: self._name_theme,
            QuartetAction.ASSIGN: self._assign,
            QuartetAction.START_THEME: self._start_theme,
            QuartetAction.PENALTY: self._penalty,
            QuartetAction.ABSENT: self._presence,
            QuartetAction.PRESENT: self._presence,
            QuartetAction.ADD_MEMBER: self._add_member,
            QuartetAction.RENAME_MEMBER: self._rename_member,
            QuartetAction.APPEAL: self._appeal_upheld,
        }[cmd.action]
        problem = handler(cmd, now, out)
        if problem is not None:
            out.append(refusal(now, cmd.action.value, problem, self._phase.value))

    def _new_fight(self, cmd: QuartetHost, now: int, out: list[Output]) -> Reason | None:
        self._reset()
        out.append(FightStarted(t_ns=now, stage=self.rules.stage, teams=tuple(self._teams),
                                rounds=self.rules.rounds, seed=self.rules.seed))
        return None

    def _start_round(self, cmd: QuartetHost, now: int, out: list[Output]) -> Reason | None:
        if self._phase is not FightPhase.BEFORE_ROUND:
            return self._not_between_rounds()
        kind = self.rules.rounds[self._rounds_started]
        themes = cmd.themes
        ahead = self._pack_ahead()
        if kind is RoundType.OPEN and themes is None and len(ahead) >= THEMES_PER_ROUND:
            themes = tuple(t.name for t in ahead[:THEMES_PER_ROUND])  # the pack's, in order (3.7)
        if kind is RoundType.OPEN:
            if themes is None or len(themes) != THEMES_PER_ROUND or any(not n.strip() for n in themes):
                return why(Why.OPEN_ROUND_THEMES_FIRST, themes=THEMES_PER_ROUND)
        elif themes is not None:
            return why(Why.THEME_NAMED_BEFORE_PLAY, round=ROUND_RU[kind])
        plays = {t: min(PLAYERS_PER_ROUND, len(self._present[t])) for t in self._teams}
        self._rounds_started += 1
        self._round = RoundState(number=self._rounds_started, type=kind, plays=plays)
        if themes is not None:
            self._round.names = list(themes)
        self._theme_index = 0
        self._next_name = None
        self._phase = FightPhase.BETWEEN_THEMES
        self._deadline = now + self.rules.assign_ns if kind is not RoundType.HALF_DARK else None
        self._deadline_passed = False
        out.append(RoundStarted(t_ns=now, round=self._round.number, round_type=kind,
                                themes=None if themes is None else tuple(themes), plays=plays,
                                assign_ends_ns=self._deadline))
        return None

    def _name_theme(self, cmd: QuartetHost, now: int, out: list[Output]) -> Reason | None:
        if self._phase not in (FightPhase.BETWEEN_THEMES, FightPhase.SHOOTOUT_DUE):
            return why(Why.THEME_NAMED_BETWEEN_THEMES)
        name = (cmd.name or "").strip()
        ahead = self._pack_ahead()
        if not name and ahead:
            name = ahead[0].name  # the pack's next theme (3.7: the order is fixed in advance)
        if not name:
            return why(Why.THEME_NAME_MISSING)
        shootout = self._phase is FightPhase.SHOOTOUT_DUE
        rnd = self._round
        if not shootout:
            assert rnd is not None
            if rnd.type is RoundType.OPEN:
                return why(Why.OPEN_ROUND_THEMES_NAMED)
        if self._next_name is not None:
            return why(Why.NEXT_THEME_ALREADY_NAMED, theme=self._next_name)
        if not shootout and rnd is not None and rnd.type is RoundType.DARK and self._theme_index == 0:
            waiting = self._missing()
            if waiting:  # 3.6.3: every order is given before the first theme is known
                return why(Why.DARK_ORDER_FIRST, waiting=", ".join(waiting))
        self._next_name = name
        choose = shootout or (rnd is not None and rnd.type is RoundType.HALF_DARK)
        if choose:
            self._deadline = now + self.rules.choose_ns
            self._deadline_passed = False
            if not shootout:
                self._auto_skips()
        round_no, theme_no = self._slot()
        out.append(ThemeNamed(t_ns=now, round=round_no, theme=theme_no, name=name, shootout=shootout,
                              choose_ends_ns=self._deadline if choose else None))
        return None

    def _auto_skips(self) -> None:
        """A team whose present players have all played this round skips the theme (3.8)."""
        rnd = self._round
        assert rnd is not None
        for team in self._teams:
            if len(rnd.used(team, self._theme_index)) >= rnd.plays[team]:
                rnd.order.setdefault(team, [])[self._theme_index:] = [None]

    def _assign(self, cmd: QuartetHost, now: int, out: list[Output]) -> Reason | None:
        team = self._teams.get(cmd.team or "")
        if team is None:
            return why(Why.NO_TEAM_IN_FIGHT_OF, team=cmd.team, teams=", ".join(self._teams))
        late = self._deadline_passed
        if self._phase is FightPhase.SHOOTOUT_DUE:
            problem = self._assign_shootout(team, cmd)
            if problem is None:
                self._assigned(now, out, team, (self._shootout_seats[team.id],), late)
            return problem
        rnd = self._round
        if self._phase is not FightPhase.BETWEEN_THEMES or rnd is None:
            return why(Why.PLAYERS_BETWEEN_THEMES)
        present = self._present_in(team)
        if rnd.type is RoundType.HALF_DARK:
            if cmd.players is not None or cmd.player is None:
                return why(Why.HALF_DARK_ONE_PLAYER)
            if self._next_name is None:
                return why(Why.HALF_DARK_THEME_FIRST)
            player = cmd.player or None
            problem = check_choice(team, present, rnd.plays[team.id], rnd.used(team.id, self._theme_index),
                                   self._theme_index, player)
            if problem:
                return problem
            rnd.order.setdefault(team.id, [])[self._theme_index:] = [player]
        else:
            if cmd.players is None or cmd.player is not None:
                return why(Why.ORDER_FOR_WHOLE_ROUND, round=ROUND_RU[rnd.type], clause=rnd.clause)
            if self._theme_index > 0:
                return why(Why.ORDER_FIXED, clause=rnd.clause)
            if rnd.type is RoundType.DARK and self._next_name is not None:
                # 3.6.3: the order is the team's before it knows any theme of the round.
                return why(Why.DARK_ORDER_BEFORE_THEME)
            problem = check_order(team, present, rnd.plays[team.id], cmd.players, rnd.clause)
            if problem:
                return problem
            rnd.order[team.id] = list(cmd.players)
        self._assigned(now, out, team, tuple(rnd.order[team.id]), late)
        return None

    def _assign_shootout(self, team: QuartetTeam, cmd: QuartetHost) -> Reason | None:
        pending = self._pending_teams()
        if team.id not in pending:
            return why(Why.NOT_IN_SHOOTOUT, team=team.id, pending=", ".join(pending))
        if self._next_name is None:
            return why(Why.SHOOTOUT_THEME_FIRST)
        if not cmd.player:
            return why(Why.SHOOTOUT_ONE_PLAYER)
        if cmd.player not in team.players:
            return why(Why.NOT_A_PLAYER_OF_TEAM, player=cmd.player, team=team.id)
        if cmd.player not in self._present[team.id]:
            return why(Why.PLAYER_ABSENT, player=cmd.player)
        self._shootout_seats[team.id] = cmd.player
        return None

    def _assigned(self, now: int, out: list[Output], team: QuartetTeam, order: tuple[str | None, ...],
                  late: bool) -> None:
        out.append(PlayersAssigned(t_ns=now, round=self._slot()[0], team=team.id, order=order, late=late))
        if self._deadline is not None and not self._missing():
            self._deadline = None  # everyone is in: the clock has done its work

    def _start_theme(self, cmd: QuartetHost, now: int, out: list[Output]) -> Reason | None:
        shootout = self._phase is FightPhase.SHOOTOUT_DUE
        if self._phase is not FightPhase.BETWEEN_THEMES and not shootout:
            return why(Why.THEME_STARTS_BETWEEN_THEMES)
        name = self._theme_name()
        if name is None:
            return why(Why.THEME_NOT_NAMED)
        missing = self._missing()
        if missing:
            return why(Why.THEME_PLAYERS_MISSING, teams=", ".join(missing))
        seats = self._seats()
        round_no, theme_no = self._slot()
        theme = ThemeRecord(round=round_no, number=theme_no, name=name, shootout=shootout, seats=seats)
        self._theme = theme
        self._deadline = None
        # An appeal on the theme just played is heard until this theme's reading starts (4.1):
        # its first question's announcement closes it (`_referee_out`).
        skipped = tuple(t for t in self._playing_teams() if t not in seats)
        seated = tuple(Seat(team=t, pad=self._teams[t].pad, player=p) for t, p in seats.items())
        out.append(ThemeStarted(t_ns=now, round=round_no, theme=theme_no, name=name, shootout=shootout,
                                seats=seated, skipped=skipped))
        self._phase = FightPhase.THEME
        self._question = None
        if not seats:
            self._end_theme(now, out)  # nobody plays it: 0 for all (3.8)
            return None
        players = [Player(t, f"{p} ({self._teams[t].name})", self._teams[t].pad) for t, p in seats.items()]
        bench: frozenset[str] = frozenset()
        if len(players) == 1:
            # The referee needs two seats (App.1); the other team's seat stands in, benched: its
            # presses are not passed on (see _to_referee) and it is out of every question, so a
            # wrong answer of the one team ends the question (App.10, 3.8).
            stand_in = next(t for t in self.rules.teams if t.id not in seats)
            players.append(Player(stand_in.id, stand_in.name, stand_in.pad))
            bench = frozenset({stand_in.id})
        ordinal = len(self._themes) + 1  # this theme's place in the fight, shoot-outs counted
        self._referee = SvoyaReferee(replace(self.rules.svoya, players=tuple(players), themes=1, bench=bench,
                                             seed=self.rules.svoya.seed + ordinal,
                                             pack=self.rules.pack[ordinal - 1:ordinal]))
        # A button source lost before the theme is still lost for its referee.
        self._referee.handle_all([SourceLink(s, False, since) for s, since in self._lost.items()], now)
        return None

    def _penalty(self, cmd: QuartetHost, now: int, out: list[Output]) -> Reason | None:
        theme = self._theme
        if self._phase is not FightPhase.THEME or theme is None:
            return why(Why.PENALTY_DURING_THEME)
        team = cmd.team or ""
        if team not in theme.seats:
            return why(Why.PENALTY_NO_PLAYER, team=team)
        if cmd.penalty is None:
            return why(Why.PENALTY_KIND_MISSING)
        question = value = None
        if cmd.penalty is Penalty.WARNING:
            self._warnings[team] += 1
        else:
            if not self._warnings[team] and not cmd.gross:
                return why(Why.PENALTY_WARNING_FIRST)
            if self._question is None:
                return why(Why.PENALTY_NO_QUESTION_YET)
            question, value = self._question
            if cmd.penalty is Penalty.VOID:
                theme.voided.add((team, question))
            else:
                theme.penalties[team] = theme.penalties.get(team, 0) - value
        out.append(PenaltyGiven(t_ns=now, team=team, player=theme.seats[team], penalty=cmd.penalty,
                                gross=cmd.gross, warnings=self._warnings[team], question=question,
                                value=value, totals=self._totals()))
        return None

    def _presence(self, cmd: QuartetHost, now: int, out: list[Output]) -> Reason | None:
        team = self._teams.get(cmd.team or "")
        if team is None:
            return why(Why.NO_TEAM_IN_FIGHT, team=cmd.team)
        if cmd.player not in team.players:
            return why(Why.NOT_A_PLAYER_OF_TEAM, player=cmd.player, team=team.id)
        present = cmd.action is QuartetAction.PRESENT
        if (cmd.player in self._present[team.id]) == present:
            return why(Why.ALREADY_PRESENT if present else Why.ALREADY_ABSENT, player=cmd.player)
        (self._present[team.id].add if present else self._present[team.id].discard)(cmd.player)
        out.append(PresenceChanged(t_ns=now, team=team.id, player=cmd.player, present=present))
        return None

    def _add_member(self, cmd: QuartetHost, now: int, out: list[Output]) -> Reason | None:
        """A player the config did not list joins the team's roster (3.2: any of its players may
        play), at the game from now on (counted at the next round's start, 3.8)."""
        team = self._teams.get(cmd.team or "")
        if team is None:
            return why(Why.NO_TEAM_IN_FIGHT, team=cmd.team)
        problem = name_refusal(cmd.name or "", team.players, word="имя", who="игрок")
        if problem is not None:
            return problem
        name = (cmd.name or "").strip()
        self.rules = replace(self.rules, teams=tuple(replace(t, players=(*t.players, name)) if t.id == team.id
                                                     else t for t in self.rules.teams))
        self._teams = {t.id: t for t in self.rules.teams}
        self._present[team.id].add(name)
        out.append(PresenceChanged(t_ns=now, team=team.id, player=name, present=True))
        return None

    def _rename_member(self, cmd: QuartetHost, now: int, out: list[Output]) -> Reason | None:
        """A player's name corrected (a typo on the roster): the same player keeps their place
        in the round's order and the themes they played. Not while they sit at the table: the
        theme's referee has announced them under the name they sat down with."""
        team = self._teams.get(cmd.team or "")
        if team is None:
            return why(Why.NO_TEAM_IN_FIGHT, team=cmd.team)
        was = cmd.player or ""
        if was not in team.players:
            return not_a_player(was, team)
        if self._theme is not None and self._theme.seats.get(team.id) == was:
            return why(Why.RENAME_WHILE_PLAYING, player=was)
        problem = name_refusal(cmd.name or "", (p for p in team.players if p != was), word="имя", who="игрок")
        if problem is not None:
            return problem
        name = (cmd.name or "").strip()
        if name == was:
            return why(Why.RENAME_SAME, name=name)
        players = tuple(name if p == was else p for p in team.players)
        self.rules = replace(self.rules, teams=tuple(replace(t, players=players) if t.id == team.id else t
                                                     for t in self.rules.teams))
        self._teams = {t.id: t for t in self.rules.teams}
        self._present[team.id] = {name if p == was else p for p in self._present[team.id]}
        if self._round is not None and team.id in self._round.order:
            self._round.order[team.id] = [name if p == was else p for p in self._round.order[team.id]]
        if self._shootout_seats.get(team.id) == was:
            self._shootout_seats[team.id] = name
        for theme in self._themes:
            if theme.seats.get(team.id) == was:
                theme.seats[team.id] = name
        out.append(MemberRenamed(t_ns=now, team=team.id, name=name, was=was))
        return None

    # ------------------------------------------------------------------ the theme's and the fight's end

    def _end_theme(self, now: int, out: list[Output]) -> None:
        theme = self._theme
        assert theme is not None
        self._themes.append(theme)
        self._theme = None
        self._appeal = None if self._referee is None else (theme, self._referee)
        self._referee = None
        self._next_name = None
        scores = {t: theme.score(t) for t in theme.seats}
        out.append(ThemeEnded(t_ns=now, round=theme.round, theme=theme.number, name=theme.name,
                              shootout=theme.shootout, scores=scores, totals=self._totals()))
        if theme.shootout:
            self._shootouts.append(Shootout(teams=frozenset(theme.seats), scores=scores))
            self._shootout_seats = {}
            self._rank(now, out)
            return
        self._theme_index += 1
        if self._theme_index < THEMES_PER_ROUND:
            self._phase = FightPhase.BETWEEN_THEMES
            return
        self._round = None
        if self._rounds_started < len(self.rules.rounds):
            self._phase = FightPhase.BEFORE_ROUND
            return
        self._rank(now, out)

    def _rank(self, now: int, out: list[Output]) -> None:
        places = self._places = self.places()
        if places.pending:
            self._phase = FightPhase.SHOOTOUT_DUE
            out.append(ShootoutNeeded(t_ns=now, pending=places.pending))
            return
        self._phase = FightPhase.OVER
        tallies = self.tallies()
        out.append(FightOver(
            t_ns=now, stage=self.rules.stage,
            places=tuple(PlaceRecord(place=i + 1, team=t, total=tallies[t].total, plus=tallies[t].plus,
                                     taken=views.taken(tallies[t]))
                         for i, t in enumerate(places.order)),
            by=places.by, lots=places.lots, shootouts=len(self._shootouts)))

    # ------------------------------------------------------------------ helpers

    def _pack_ahead(self) -> tuple[PackTheme, ...]:
        """The pack's themes not played yet, the next first (the fight's k-th theme is the
        pack's k-th, 3.7); () without a pack or once it is used up."""
        return self.rules.pack[len(self._themes) + (self._theme is not None):]

    def _present_in(self, team: QuartetTeam) -> set[str]:
        return self._present[team.id]

    def _slot(self) -> tuple[int, int]:
        """(round, theme) numbers of the next or current theme; shoot-outs count as a round after the last."""
        if self._phase is FightPhase.SHOOTOUT_DUE or (self._theme is not None and self._theme.shootout):
            return len(self.rules.rounds) + 1, len(self._shootouts) + 1
        number = self._round.number if self._round is not None else self._rounds_started
        return number, self._theme_index + 1

    def _deadline_theme(self) -> int | None:
        rnd = self._round
        if self._phase is FightPhase.SHOOTOUT_DUE or (rnd is not None and rnd.type is RoundType.HALF_DARK):
            return self._slot()[1]
        return None

    def _theme_name(self) -> str | None:
        if self._phase is not FightPhase.SHOOTOUT_DUE and self._round is not None \
                and self._round.type is RoundType.OPEN:
            return self._round.names[self._theme_index]
        return self._next_name

    def _pending_teams(self) -> tuple[str, ...]:
        places = self._places
        return () if places is None or not places.pending else places.pending[0].teams

    def _playing_teams(self) -> tuple[str, ...]:
        return self._pending_teams() if self._phase is FightPhase.SHOOTOUT_DUE else tuple(self._teams)

    def _missing(self) -> list[str]:
        """Teams that have not named their player(s) for the theme (or the round) ahead."""
        if self._phase is FightPhase.SHOOTOUT_DUE:
            return [t for t in self._pending_teams() if t not in self._shootout_seats]
        rnd = self._round
        if rnd is None:
            return []
        index = self._theme_index if rnd.type is RoundType.HALF_DARK else THEMES_PER_ROUND - 1
        return [t for t in self._teams if not rnd.entry(t, index)[0]]

    def _seats(self) -> dict[str, str]:
        if self._phase is FightPhase.SHOOTOUT_DUE:
            return dict(self._shootout_seats)
        rnd = self._round
        assert rnd is not None
        seats: dict[str, str] = {}
        for t in self._teams:
            _, player = rnd.entry(t, self._theme_index)
            if player is not None:
                seats[t] = player
        return seats

    def _totals(self) -> dict[str, int]:
        """Each team's fight total so far, the theme in play included (3.9)."""
        return {t: tally.total for t, tally in self.tallies().items()}

    def _not_between_rounds(self) -> Reason:
        if self._phase is FightPhase.OVER:
            return why(Why.FIGHT_OVER_NEW_FIGHT)
        if self._phase is FightPhase.SHOOTOUT_DUE:
            return why(Why.SHOOTOUT_FIRST)
        return why(Why.ROUND_NOT_OVER)

    # ------------------------------------------------------------------ views

    def snapshot(self, now: int) -> dict[str, Json]:
        """The whole public state (the retained state topic, docs/mqtt-quartet.md)."""
        return views.snapshot(self._view(), now)

    def host_snapshot(self, now: int) -> dict[str, Json]:
        """`snapshot` plus `host_actions` and what the theme's referee shows the host only."""
        return views.host_snapshot(self._view(), now)

    def _view(self) -> views.FightView:
        """What a snapshot shows, as one record (console/engine/quartet/views.py writes it)."""
        return views.FightView(
            phase=self._phase, rules=self.rules, round=self._round, theme_index=self._theme_index,
            next_theme=self._theme_name() if self._theme is None else None, theme=self._theme,
            question=self._question, referee=self._referee, appeal=self._appeal,
            present=self._present, warnings=self._warnings, themes=tuple(self._themes),
            totals=self._totals(), tallies=self.tallies(), places=self._places,
            timer=self.running_timer(), actions=tuple(self._actions()))

    def _actions(self) -> list[Json]:
        """The fight's own host actions that may be taken now."""
        actions: list[Json] = [QuartetAction.NEW_FIGHT.value]
        match self._phase:
            case FightPhase.BEFORE_ROUND:
                actions.append(QuartetAction.START_ROUND.value)
            case FightPhase.BETWEEN_THEMES | FightPhase.SHOOTOUT_DUE:
                if self._theme_name() is None:
                    actions.append(QuartetAction.NAME_THEME.value)
                actions.append(QuartetAction.ASSIGN.value)
                if self._theme_name() is not None and not self._missing():
                    actions.append(QuartetAction.START_THEME.value)
            case FightPhase.THEME:
                actions.append(QuartetAction.PENALTY.value)
            case FightPhase.OVER:
                pass
        if self._appeal is not None:
            actions.append(QuartetAction.APPEAL.value)
        actions += [QuartetAction.ABSENT.value, QuartetAction.PRESENT.value, QuartetAction.ADD_MEMBER.value,
                    QuartetAction.RENAME_MEMBER.value]
        return actions


def _correct(theme: ThemeRecord, event: JudgementReversed | ScoreAdjusted) -> None:
    """A correction of the theme's referee, kept in the theme's record (4.1-4.3): a reversed
    judgement changes that answer (so a question now taken counts among the taken, 3.10); a
    score adjusted by hand changes the total only."""
    if isinstance(event, ScoreAdjusted):
        theme.adjusted[event.player] = theme.adjusted.get(event.player, 0) + event.delta
        return
    answers = [a for a in theme.answers.get(event.player, []) if a.question == event.number]
    if answers:
        answers[-1].delta += event.delta


def _undo(theme: ThemeRecord, event: JudgementUndone) -> None:
    """A judgement taken back at once (a mistaken key): the answer it recorded is gone from the
    theme's record; the team answers again and the host's new verdict is recorded."""
    answers = theme.answers.get(event.player, [])
    for i in range(len(answers) - 1, -1, -1):
        if answers[i].question == event.number:
            del answers[i]
            return


def _action_of(command: Host | Undo) -> str:
    return command.action.value if isinstance(command, Host) else command.ACTION
