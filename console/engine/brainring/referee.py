"""The «Брейн-ринг» referee: a pure state machine over timestamped inputs.

Theory of operation (../shared/RULES.md §5; the sources are named in `rules`):

``idle`` --next--> ``reading`` --time («Время!»)--> ``counting``
``reading``: a press of a team is a false start: the team is out of the question (its lamp
flashes, its cue), and the others' count will be the 20 s (windflower 2.4; TV 5.1)
``counting`` --the first press of a team in play settles--> ``answering`` (the count stops)
``answering`` --correct--> the question is over, the stake to the team (windflower 2.3);
--wrong--> the team is out (one answer a team, regmik 2.4) and the others' 20 s run (or the
time left: `Rebound`); with nobody left in play, or the count over with no press, the
question ends unanswered (the next one's stake rises where `rising_stakes` is set).
A fight ends when a team reaches `target`, or after `questions` with one team ahead; a
shared lead then goes to extra questions (regmik 1.2-2.3). ``fight_over`` --new_fight-->
the next fight of the game, its standings kept.

Every press is judged on its own stamp (``at``), never on when it arrived: a press stamped
before «Время!» is a false start even if it reached the console after the key; the first
press is final once every source has reported through it and the tie window (`Arbiter`), and
presses on the same tick are a tie, drawn with ``random.Random(rules.seed)`` and reported with
their deltas. A count ends once every source has reported through its end. A lost box is
waited for (`lost_source_wait_ns`), then given up: decisions over its span name it
(`inputs_lost`). The engine reads no clock and does no I/O; the same inputs at the same
``now`` always give the same outputs.

The host may correct: change a team's score with a reason at any time (`AdjustScore`, the
team's id as its player), and reverse the last judgement of the question just played, once,
before the next one starts (`Reverse`). The fight's end follows the scores: a correction that
brings a team to the target ends the fight; one that takes the winner below it reopens it.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from dataclasses import replace

from console.engine.arbiter import Arbiter
from console.engine.brainring import teams
from console.engine.brainring.events import (
    AnswerJudged,
    CountPaused,
    CountResumed,
    CountStarted,
    CountWarning,
    ExtraQuestions,
    FalseStart,
    FightOver,
    FightStarted,
    JudgementReversed,
    JudgementUndone,
    PadAwaited,
    PadBound,
    PressIgnored,
    PressReason,
    PressRecord,
    QuestionEnd,
    QuestionEnded,
    QuestionStarted,
    ScoreAdjusted,
    SignalAccepted,
    TeamAdded,
    TeamRemoved,
    TeamRenamed,
    TimeUp,
    event_view,
)
from console.engine.brainring.question import Phase, Question
from console.engine.brainring.rules import (
    BrainringAction,
    BrainringHost,
    BrainringRules,
    Rebound,
    SendOut,
    Team,
)
from console.engine.brainring.teams import TeamAction, TeamChange
from console.engine.corrections import MAX_ADJUSTMENT, AdjustScore, Reverse, Undo
from console.engine.events import CommandRefused, refusal
from console.engine.model import (
    NS_PER_S,
    Cue,
    Json,
    LampMode,
    Output,
    PlayCue,
    Press,
    SetLamps,
    SourceLink,
    Watermark,
    ns_to_ms,
)
from console.engine.refusals import Reason, Why, why

__all__ = ["BrainringInput", "BrainringReferee", "Phase"]

BrainringInput = Press | Watermark | SourceLink | BrainringHost | AdjustScore | Reverse | Undo | TeamChange


class BrainringReferee:
    """Referee of a game of «Брейн-ринг» fights. See the module docstring for the contract."""

    def __init__(self, rules: BrainringRules) -> None:
        self.rules = rules
        self._arbiter = Arbiter(rules.sources, rules.tie_window_ns)
        self._rng = random.Random(rules.seed)
        self._order = {pad: i for i, pad in enumerate(rules.pads)}
        self._fight = 1
        self._scores = {t.id: 0 for t in rules.teams}
        self._standings: list[tuple[str, dict[str, int]]] = []  # the game's fights won: (winner, scores)
        self._phase = Phase.IDLE
        self._q: Question | None = None
        self._played = 0  # questions of this fight played (a withdrawn one is not)
        self._unanswered = 0  # questions in a row nobody took
        self._extra = False
        self._extra_teams: tuple[str, ...] = ()  # the tied leaders who play the extra questions
        self._winner: str | None = None
        self._sent_out: dict[str, SendOut] = {}  # pad -> until when it is out
        self._last_decision: SignalAccepted | None = None
        self._last_end: QuestionEnded | None = None
        self._lamps: dict[str, LampMode] = {}
        # How the fight stood just before the judgement just given, while it may be taken back
        # (`Undo`): until anything else happens (a press taking the turn, the count's end, an
        # action of the host).
        self._undo: dict[str, object] | None = None
        self._awaiting: TeamChange | None = None  # a bind_pad or add_team waiting for a free button's press
        self._retired: set[str] = set()  # ids of teams removed (never given again)

    # ------------------------------------------------------------------ public API

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def scores(self) -> dict[str, int]:
        return dict(self._scores)

    def handle(self, inp: BrainringInput, now: int) -> list[Output]:
        return self.handle_all((inp,), now)

    def handle_all(self, inputs: Sequence[BrainringInput], now: int) -> list[Output]:
        """Take inputs that arrived together at `now`; decisions wait for the last of them,
        so a tie inside one scan is seen whole."""
        out: list[Output] = []
        self._settle(now, out)
        for inp in inputs:
            if isinstance(inp, Press):
                self._on_press(inp, now, out)
            elif isinstance(inp, Watermark):
                self._arbiter.note(inp.source, inp.up_to, inp.lost_from)
            elif isinstance(inp, SourceLink):
                self._on_link(inp)
            elif isinstance(inp, TeamChange):
                self._on_team(inp, now, out)
            else:
                self._on_host(inp, now, out)
                self._settle(now, out)
        self._settle(now, out)
        self._update_lamps(out)
        return out

    def on_timer(self, now: int) -> list[Output]:
        out: list[Output] = []
        self._settle(now, out)
        self._update_lamps(out)
        return out

    def next_deadline(self) -> int | None:
        q = self._q
        if q is None or self._phase not in (Phase.READING, Phase.COUNTING, Phase.ANSWERING):
            return None
        deadlines = [since + self.rules.lost_source_wait_ns
                     for since in self._arbiter.lost_sources().values()]
        deadlines += [p.at + self.rules.host_max_delay_ns for p in q.early]
        if self._phase is Phase.COUNTING and q.count_ends is not None:
            held = q.paused_at is not None  # a held count neither warns nor ends
            if not q.warned and not q.pending and not held:  # a press pending is settled first
                deadlines.append(q.count_ends - self.rules.warning_ns)
            if not self._arbiter.lost_sources():  # a lost box settles nothing by the clock
                if q.pending:  # the press first: the count's end waits for it (`_settle`)
                    deadlines.append(self._arbiter.first_deadline(min(p.at for p in q.pending)))
                elif not held:
                    deadlines.append(self._arbiter.settle_deadline(q.count_ends))
        return min(deadlines) if deadlines else None

    def running_timer(self) -> tuple[str, int] | None:
        q = self._q
        if self._phase is Phase.COUNTING and q is not None and q.count_ends is not None:
            return "count", q.count_ends
        return None

    def snapshot(self, now: int) -> dict[str, Json]:
        q = self._q
        in_play = q is not None and self._phase in (Phase.READING, Phase.COUNTING, Phase.ANSWERING)
        timer = self.running_timer()
        return {
            "phase": self._phase.value,
            "fight": self._fight,
            "target": self.rules.target,
            "questions": self.rules.questions,
            "played": self._played,
            "teams": [
                {"id": t.id, "name": t.name, "pads": list[Json](t.pads), "score": self._scores[t.id],
                 "status": q.status_of(t) if in_play and q is not None else "idle",
                 "sent_out": [pad for pad in t.pads if pad in self._sent_out]}
                for t in self.rules.teams
            ],
            "question": q.view() if in_play and q is not None else None,
            "next": None if self._phase is Phase.FIGHT_OVER else {
                "number": self._played + 1, "stake": self.rules.stake(self._unanswered),
                "extra": self._extra},
            "timer": None if timer is None else self._timer_view(timer, now),
            "winner": self._winner,
            "last_decision": _view(self._last_decision),
            "last_end": _view(self._last_end),
            "standings": self._standings_view(),
        }

    def _timer_view(self, timer: tuple[str, int], now: int) -> dict[str, Json]:
        """The running count for the boards; a held one says so and keeps what it has left."""
        kind, ends = timer
        q = self._q
        paused_at = q.paused_at if q is not None else None
        left_from = now if paused_at is None else paused_at
        return {"kind": kind, "ends_ns": ends, "remaining_ms": max(0, (ends - left_from) // 1_000_000),
                "paused": paused_at is not None}

    def host_snapshot(self, now: int) -> dict[str, Json]:
        """`snapshot` plus the host's: the actions taken now and the question's presses."""
        q = self._q
        in_play = q is not None and self._phase in (Phase.READING, Phase.COUNTING, Phase.ANSWERING)
        return {
            **self.snapshot(now),
            "host_actions": list(self.host_actions(now)),
            "host_question": None,
            "presses": q.presses(dict(self.rules.pads)) if in_play and q is not None else [],
            "awaiting_pad": None if self._awaiting is None else {
                "team": self._awaiting.team or None, "name": self._awaiting_name()},
        }

    def host_actions(self, now: int) -> tuple[str, ...]:
        plain = [a.value for a in BrainringAction if self._refusal(a) is None]
        corrections = [AdjustScore.ACTION.value]
        if self._undo is not None:
            corrections.append(Undo.ACTION)
        if self._reverse_refusal() is None:
            corrections.append(Reverse.ACTION.value)
        changes = [a.value for a in TeamAction if self._between_questions()
                   and (a not in (TeamAction.ADD, TeamAction.REMOVE) or self._between_fights())
                   and not (a is TeamAction.REMOVE and len(self.rules.teams) <= 2)]
        return (*plain, *corrections, *changes)

    # ------------------------------------------------------------------ the teams (teams.py)

    def _between_questions(self) -> bool:
        return self._phase in (Phase.IDLE, Phase.FIGHT_OVER)

    def _awaiting_name(self) -> str:
        change = self._awaiting
        assert change is not None
        return change.name.strip() if change.action is TeamAction.ADD else self._team_name(change.team)

    def _team_name(self, team: str) -> str:
        return next(t.name for t in self.rules.teams if t.id == team)

    def _between_fights(self) -> bool:
        """Before the fight's first question (a fight just begun: nothing of it stands for a
        team that joins or leaves to spoil, no judgement of it to reverse)."""
        return self._phase is Phase.IDLE and self._played == 0

    def _team_refusal(self, change: TeamChange) -> Reason | None:
        if not self._between_questions():
            return why(Why.TEAMS_BETWEEN_QUESTIONS)
        if change.action in (TeamAction.ADD, TeamAction.REMOVE) and not self._between_fights():
            return why(Why.TEAMS_BEFORE_FIGHT)
        return teams.refusal(change, self.rules)

    def _on_team(self, change: TeamChange, now: int, out: list[Output]) -> None:
        problem = self._team_refusal(change)
        if problem is not None:
            out.append(refusal(now, change.action.value, problem, self._phase.value))
            return
        self._undo = None  # the judgement before is not the last thing done any more
        if change.action in (TeamAction.BIND, TeamAction.ADD):
            self._awaiting = change
            name = change.name.strip() if change.action is TeamAction.ADD else self._team_name(change.team)
            out.append(PadAwaited(t_ns=now, team=change.team or None, name=name))
        elif change.action is TeamAction.REMOVE:
            name = self._team_name(change.team)
            gone = next(t.pads for t in self.rules.teams if t.id == change.team)
            self._set_teams(teams.without(self.rules.teams, change.team))
            self._scores.pop(change.team, None)
            self._retired.add(change.team)
            # Nothing of it waits on: a button awaited for it, its buttons sent out.
            if self._awaiting is not None and self._awaiting.team == change.team:
                self._awaiting = None
            self._sent_out = {pad: until for pad, until in self._sent_out.items() if pad not in gone}
            out.append(TeamRemoved(t_ns=now, team=change.team, name=name, scores=dict(self._scores)))
        else:
            was = self._team_name(change.team)
            self._set_teams(teams.renamed(self.rules.teams, change.team, change.name))
            out.append(TeamRenamed(t_ns=now, team=change.team, name=self._team_name(change.team), was=was))

    def _bind_pressed(self, press: Press, now: int, out: list[Output]) -> None:
        """A free button pressed while one is awaited: it is the awaited team's (or the new
        team's first)."""
        change, self._awaiting = self._awaiting, None
        assert change is not None
        if change.action is TeamAction.ADD:
            taken = {*(t.id for t in self.rules.teams), *self._retired}
            new_id = next(f"t{i}" for i in range(1, len(taken) + 2) if f"t{i}" not in taken)
            self._set_teams((*self.rules.teams, Team(new_id, change.name.strip(), (press.pad,))))
            self._scores[new_id] = 0
            out.append(TeamAdded(t_ns=now, team=new_id, name=change.name.strip(), pad=press.pad,
                                 scores=dict(self._scores)))
            return
        self._set_teams(teams.with_pad(self.rules.teams, change.team, press.pad))
        team = self.rules.pads[press.pad]
        out.append(PadBound(t_ns=now, team=team.id, pad=press.pad, pads=team.pads))

    def _set_teams(self, changed: tuple[Team, ...]) -> None:
        self.rules = replace(self.rules, teams=changed)
        self._order = {pad: i for i, pad in enumerate(self.rules.pads)}

    # ------------------------------------------------------------------ presses

    def _on_press(self, press: Press, now: int, out: list[Output]) -> None:
        team = self.rules.pads.get(press.pad)
        if (team is None and self._awaiting is not None and self._between_questions()
                and self._arbiter.knows(press.source) and press.pad.startswith(f"{press.source}:")):
            self._bind_pressed(press, now, out)
            return
        if not self._arbiter.knows(press.source) or team is None:
            message = why(Why.UNBOUND_PAD_TEAM, pad=press.pad).text
            out.append(CommandRefused(t_ns=now, message=message,
                                      details={"source": press.source, "pad": press.pad, "at_ns": press.at}))
            return
        q = self._q
        if q is None or press.at < q.started_at:
            out.append(self._ignored(now, press, PressReason.BETWEEN_QUESTIONS))
        elif q.ended_at is not None:
            if press.at <= q.ended_at:
                reason = PressReason.DELIVERED_TOO_LATE
            elif q.ended_at == q.count_ends:  # after time was up: the host sees it was late
                reason = PressReason.LATE
            else:
                reason = PressReason.BETWEEN_QUESTIONS
            out.append(self._ignored(now, press, reason))
        elif q.extra and team.id not in self._extra_teams:
            out.append(self._ignored(now, press, PressReason.NOT_IN_EXTRA))
        elif press.pad in self._sent_out:
            out.append(self._ignored(now, press, PressReason.SENT_OUT))
        elif team.id in q.out:
            out.append(self._ignored(now, press, PressReason.OUT_OF_QUESTION))
        elif q.time_at is None:
            q.early.append(press)  # a false start, unless «Время!» stamped before it is on its way
        elif press.at < q.time_at:
            if q.answerer is not None and q.answerer.id == team.id:  # delivered after its own turn
                out.append(self._ignored(now, press, PressReason.DELIVERED_TOO_LATE))
            else:
                self._false_start(q, press, now, out)
        else:
            q.pending.append(press)
            q.signals.append(press)

    def _judge_early(self, q: Question, now: int, out: list[Output]) -> None:
        """The reading's presses: after «Время!» (by its stamp) they are the count's; without
        it, once the host's key could no longer be on its way, false starts."""
        keep: list[Press] = []
        for press in sorted(q.early, key=lambda p: p.at):
            team = self.rules.pads[press.pad]
            if q.ended_at is not None:
                out.append(self._ignored(now, press, PressReason.BETWEEN_QUESTIONS))
            elif team.id in q.out:
                out.append(self._ignored(now, press, PressReason.OUT_OF_QUESTION))
            elif q.time_at is not None and press.at >= q.time_at:
                q.pending.append(press)
                q.signals.append(press)
            elif q.time_at is not None or now >= press.at + self.rules.host_max_delay_ns:
                self._false_start(q, press, now, out)
            else:
                keep.append(press)
        q.early = keep

    def _false_start(self, q: Question, press: Press, now: int, out: list[Output]) -> None:
        """A press before «Время!» (by its stamp): the team is out of this question and the
        others' count is the rebound (windflower 2.4; TV 5.1)."""
        team = self.rules.pads[press.pad]
        q.out.add(team.id)
        q.false_starts.add(team.id)
        out.append(FalseStart(t_ns=now, question=q.number, team=team.id, pad=press.pad, at_ns=press.at,
                              teams_in_play=q.in_play(self.rules.teams)))
        out.append(PlayCue(Cue.FALSE_START))
        if not q.in_play(self.rules.teams):
            self._end_question(q, now, now, QuestionEnd.UNANSWERED, out)
        elif (q.count_by == "time" and q.time_at is not None and q.count_ends is not None
              and self.rules.rebound is Rebound.FIXED):
            # Known only after «Время!» (delivered late): the others' time is still the rebound.
            q.count_ends = min(q.count_ends, q.time_at + self.rules.rebound_ns)

    def _ignored(self, now: int, press: Press, reason: PressReason) -> PressIgnored:
        q = self._q
        behind = None
        if q is not None and q.answer_press is not None and reason in (PressReason.ANSWERING,
                                                                       PressReason.DELIVERED_TOO_LATE):
            behind = ns_to_ms(press.at - q.answer_press.at)
        return PressIgnored(t_ns=now, team=self.rules.pads[press.pad].id, pad=press.pad, at_ns=press.at,
                            reason=reason, behind_ms=behind)

    def _on_link(self, link: SourceLink) -> None:
        if not self._arbiter.knows(link.source):
            return
        if link.up:
            self._arbiter.restore(link.source, link.at)
        else:
            self._arbiter.lose(link.source, link.at)

    # ------------------------------------------------------------------ settling

    def _settle(self, now: int, out: list[Output]) -> None:
        q = self._q
        if q is None or self._phase not in (Phase.COUNTING, Phase.ANSWERING, Phase.READING):
            return
        for source, since in self._arbiter.lost_sources().items():
            if now >= since + self.rules.lost_source_wait_ns:  # not back: decide without it
                self._arbiter.give_up(source)
        if q.early:
            self._judge_early(q, now, out)
            if q.ended_at is not None:  # every team false-started
                return
        self._judge_pending(q, now, out)
        if self._phase is not Phase.COUNTING or q.count_ends is None:
            return
        if q.pending:
            t0 = min(p.at for p in q.pending)
            if self._arbiter.first_settled(t0, now):
                self._accept_first(q, t0, now, out)
            return
        if q.paused_at is not None:
            return  # held: the count neither warns nor ends until the host resumes it
        if self._arbiter.settled(q.count_ends, now):
            lost = self._arbiter.lost_between(q.count_from or q.count_ends, q.count_ends)
            self._undo = None  # the count ran out: the judgement before it stands
            out.append(TimeUp(t_ns=now, question=q.number, ends_ns=q.count_ends, inputs_lost=lost or None))
            out.append(PlayCue(Cue.TIME_UP))
            self._end_question(q, now, q.count_ends, QuestionEnd.UNANSWERED, out)
        elif not q.warned and now >= q.count_ends - self.rules.warning_ns:
            q.warned = True
            out.append(CountWarning(t_ns=now, question=q.number, ends_ns=q.count_ends,
                                    remaining_s=round(max(0, q.count_ends - now) / NS_PER_S, 3)))
            out.append(PlayCue(Cue.FINAL_BEEPS))

    def _judge_pending(self, q: Question, now: int, out: list[Output]) -> None:
        """Drop the presses that can never take the turn, each with why."""
        keep: list[Press] = []
        for press in q.pending:
            team = self.rules.pads[press.pad]
            reason: PressReason | None = None
            if team.id in q.out:
                reason = PressReason.OUT_OF_QUESTION
            elif self._phase is Phase.ANSWERING:
                reason = PressReason.ANSWERING
            elif q.count_from is not None and press.at < q.count_from:
                reason = PressReason.ANSWERING  # during the answer before the rebound
            elif q.paused_when(press.at):
                reason = PressReason.PAUSED
            elif q.count_ends is not None and press.at > q.count_ends:
                reason = PressReason.LATE
            if reason is None:
                keep.append(press)
            else:
                out.append(self._ignored(now, press, reason))
        q.pending = keep

    def _accept_first(self, q: Question, t0: int, now: int, out: list[Output]) -> None:
        """The first press of a team in play stops the count; a tie on one tick by the draw."""
        ordered = sorted(q.pending, key=lambda p: (p.at, self._order[p.pad]))
        first = ordered[0].source
        tied_presses = [p for p in ordered if p.at < t0 + self._arbiter.tie_between(first, p.source)]
        tied_teams = list(dict.fromkeys(self.rules.pads[p.pad].id for p in tied_presses))
        if len(tied_teams) > 1:
            pick = tied_teams[self._rng.randrange(len(tied_teams))]
            winner = next(p for p in tied_presses if self.rules.pads[p.pad].id == pick)
        else:
            winner = tied_presses[0]
        team = self.rules.pads[winner.pad]
        assert q.count_ends is not None
        q.pending = []
        if q.paused_at is not None:  # made before the hold, it takes the turn: the count stops anyway
            q.pauses.append((q.paused_at, now))
            q.paused_at = None
        q.answerer, q.answer_press = team, winner
        q.remaining_at_press = max(0, q.count_ends - winner.at)
        self._phase = Phase.ANSWERING
        lost = self._arbiter.lost_between(q.count_from or t0, t0 + self._arbiter.tie_ns - 1)
        self._undo = None  # a press took the turn: the judgement before it stands
        decision = SignalAccepted(
            t_ns=now, question=q.number, team=team.id, name=team.name, pad=winner.pad,
            press_at_ns=winner.at, remaining_ms=ns_to_ms(q.remaining_at_press),
            presses=tuple(PressRecord(team=self.rules.pads[p.pad].id, pad=p.pad, at_ns=p.at,
                                      behind_ms=ns_to_ms(p.at - t0)) for p in ordered),
            tie=len(tied_teams) > 1, tied=tuple(tied_teams) if len(tied_teams) > 1 else None,
            inputs_lost=lost or None)
        self._last_decision = decision
        out.append(decision)
        out.append(PlayCue(Cue.SIGNAL))

    # ------------------------------------------------------------------ host actions

    def _on_host(self, cmd: BrainringHost | AdjustScore | Reverse | Undo, now: int,
                 out: list[Output]) -> None:
        if isinstance(cmd, Undo):
            problem = self._undo_judgement(cmd, now, out)
            if problem is not None:
                out.append(refusal(now, cmd.ACTION, problem, self._phase.value))
            return
        self._undo = None  # something else happened: the judgement before it stands
        if isinstance(cmd, AdjustScore):
            action, problem = cmd.ACTION.value, self._adjust(cmd, now, out)
        elif isinstance(cmd, Reverse):
            action, problem = cmd.ACTION.value, self._reverse(cmd, now, out)
        else:
            action, problem = cmd.action.value, self._refusal(cmd.action, cmd.at)
            if problem is None:
                self._take(cmd.action, cmd.at, now, out)
        if problem is not None:
            out.append(refusal(now, action, problem, self._phase.value))

    def _refusal(self, action: BrainringAction, at: int | None = None) -> Reason | None:
        """Why the host's `action` (made at `at`, when it is known) would be refused now, or
        None (also lists `host_actions`)."""
        phase = self._phase
        match action:
            case BrainringAction.NEXT:
                if phase is Phase.FIGHT_OVER:
                    return why(Why.FIGHT_OVER_NEW_FIGHT)
                if phase is not Phase.IDLE:
                    return why(Why.QUESTION_IN_PLAY)
            case BrainringAction.TIME:
                if phase is not Phase.READING:
                    return why(Why.TIME_ONCE_AFTER_READING)
            case BrainringAction.CORRECT | BrainringAction.WRONG:
                if phase is not Phase.ANSWERING:
                    return why(Why.NOBODY_ANSWERING)
            case BrainringAction.CANCEL:
                if phase not in (Phase.READING, Phase.COUNTING, Phase.ANSWERING):
                    return why(Why.NO_QUESTION_IN_PLAY)
            case BrainringAction.NEW_FIGHT:
                if phase in (Phase.READING, Phase.COUNTING, Phase.ANSWERING):
                    return why(Why.QUESTION_IN_PLAY)
            case BrainringAction.NEW_GAME:
                pass
            case BrainringAction.PAUSE:
                if phase is not Phase.COUNTING or (q := self._q) is None or q.paused_at is not None:
                    return why(Why.PAUSE_ONLY_WHILE_COUNTING)
                if at is not None and q.count_ends is not None and at >= q.count_ends:
                    return why(Why.TIME_ALREADY_OVER)  # by the key's stamp: the count had ended
            case BrainringAction.RESUME:
                if phase is not Phase.COUNTING or (q := self._q) is None or q.paused_at is None:
                    return why(Why.COUNT_NOT_PAUSED)
        return None

    def _take(self, action: BrainringAction, at: int, now: int, out: list[Output]) -> None:
        q = self._q
        match action:
            case BrainringAction.NEXT:
                self._awaiting = None  # a button not pressed for a team by now is not awaited
                self._q = Question(number=self._played + 1, stake=self.rules.stake(self._unanswered),
                                   extra=self._extra, started_at=at, unanswered_before=self._unanswered,
                                   benched=self._benched())
                self._phase = Phase.READING
                self._last_decision = None
                out.append(QuestionStarted(t_ns=now, question=self._q.number, stake=self._q.stake,
                                           extra=self._extra, started_at_ns=at))
            case BrainringAction.TIME:
                assert q is not None
                q.time_at = at
                self._judge_early(q, now, out)  # made before it: false starts; after: the count's
                if q.ended_at is not None:
                    return
                rebound = q.out and self.rules.rebound is Rebound.FIXED  # after a false start
                length = self.rules.rebound_ns if rebound else self.rules.count_ns
                self._start_count(q, at, length, "time", now, out)
            case BrainringAction.CORRECT | BrainringAction.WRONG:
                assert q is not None
                before = self._standing()
                self._judge(q, action is BrainringAction.CORRECT, at, now, out)
                self._undo = before
            case BrainringAction.CANCEL:
                assert q is not None
                self._end_question(q, now, at, QuestionEnd.CANCELLED, out)
            case BrainringAction.NEW_FIGHT:
                self._new_fight(now, out, keep_standings=True)
            case BrainringAction.NEW_GAME:
                self._new_fight(now, out, keep_standings=False)
            case BrainringAction.PAUSE:
                assert q is not None and q.count_ends is not None
                q.paused_at = at
                self._judge_pending(q, now, out)  # made while it is held: they do not count
                out.append(CountPaused(t_ns=now, question=q.number, paused_at_ns=at,
                                       remaining_ms=ns_to_ms(max(0, q.count_ends - at))))
            case BrainringAction.RESUME:
                assert q is not None and q.paused_at is not None and q.count_ends is not None
                resumed = max(at, q.paused_at)
                q.pauses.append((q.paused_at, resumed))
                q.count_ends += resumed - q.paused_at
                paused_ms = ns_to_ms(resumed - q.paused_at)
                q.paused_at = None
                out.append(CountResumed(t_ns=now, question=q.number, resumed_at_ns=resumed,
                                        paused_ms=paused_ms, ends_ns=q.count_ends))
                out.append(PlayCue(Cue.START))

    def _start_count(self, q: Question, at: int, length: int, by: str, now: int, out: list[Output]) -> None:
        q.count_from, q.count_ends, q.count_by = at, at + length, by
        q.warned = length <= self.rules.warning_ns  # too short for its final beeps
        self._phase = Phase.COUNTING
        out.append(CountStarted(t_ns=now, question=q.number, by=by, started_at_ns=at, ends_ns=q.count_ends,
                                seconds=length / NS_PER_S, teams_in_play=q.in_play(self.rules.teams)))
        out.append(PlayCue(Cue.START))

    def _judge(self, q: Question, correct: bool, at: int, now: int, out: list[Output]) -> None:
        """Correct: the stake (windflower 2.3). Wrong: the team is out of the question (regmik
        2.4) and the others' time runs from the verdict (windflower 2.4, or the time left)."""
        team, press = q.answerer, q.answer_press
        assert team is not None and press is not None
        q.last_judgement = (team.id, correct)
        if correct:
            self._scores[team.id] += q.stake
            out.append(AnswerJudged(t_ns=now, question=q.number, team=team.id, correct=True, delta=q.stake,
                                    score=self._scores[team.id]))
            q.winner = team.id
            self._end_question(q, now, at, QuestionEnd.CORRECT, out)
            return
        sent_out, player_sent_out = None, None
        early = (q.count_by == "time" and q.count_from is not None
                 and press.at - q.count_from < self.rules.send_out_within_ns)
        if self.rules.send_out is not SendOut.OFF and early:
            # The rule sends a player out. A player's own button goes out with them; the one
            # button of a team stays: the team signals on without that player.
            if len(team.pads) > 1:
                sent_out = press.pad
                self._sent_out[press.pad] = self.rules.send_out
            else:
                player_sent_out = True
        out.append(AnswerJudged(t_ns=now, question=q.number, team=team.id, correct=False, delta=0,
                                score=self._scores[team.id], sent_out=sent_out,
                                player_sent_out=player_sent_out))
        q.out.add(team.id)
        remaining = q.remaining_at_press or 0
        q.answerer = q.answer_press = None
        q.remaining_at_press = None
        if not q.in_play(self.rules.teams):
            self._end_question(q, now, at, QuestionEnd.UNANSWERED, out)
            return
        if self.rules.rebound is Rebound.FIXED:
            length = self.rules.rebound_ns
        else:  # the time left; in its last second, the rebound on top (club)
            length = remaining + (self.rules.rebound_ns if remaining < NS_PER_S else 0)
        self._start_count(q, at, length, "rebound", now, out)

    def _end_question(self, q: Question, now: int, at: int, reason: QuestionEnd, out: list[Output]) -> None:
        q.ended_at, q.end_reason = at, reason
        for press in q.pending:
            out.append(self._ignored(now, press, PressReason.DELIVERED_TOO_LATE))
        for press in q.early:  # the question was withdrawn before they were judged
            out.append(self._ignored(now, press, PressReason.BETWEEN_QUESTIONS))
        q.pending, q.early = [], []
        q.answerer = None
        self._phase = Phase.IDLE
        if reason is not QuestionEnd.CANCELLED:
            self._played += 1
            self._unanswered = 0 if reason is QuestionEnd.CORRECT else q.unanswered_before + 1
        end = QuestionEnded(t_ns=now, question=q.number, reason=reason, winner=q.winner, stake=q.stake,
                            next_stake=self.rules.stake(self._unanswered), scores=dict(self._scores))
        self._last_end = end
        out.append(end)
        self._check_fight_end(now, out)

    # ------------------------------------------------------------------ undo

    _KEPT = ("_q", "_phase", "_scores", "_played", "_unanswered", "_extra", "_extra_teams", "_winner",
             "_sent_out", "_last_end", "_standings", "_fight")

    def _standing(self) -> dict[str, object]:
        """How the fight stands now, every part a judgement may change (a copy)."""
        return {name: copy.deepcopy(getattr(self, name)) for name in self._KEPT}

    def _undo_judgement(self, cmd: Undo, now: int, out: list[Output]) -> Reason | None:
        """The judgement just given taken back: the fight as it stood before it, the team
        answering again; said with the reason (like every correction, it is journaled)."""
        if self._undo is None:
            return why(Why.UNDO_ONLY_JUST_GIVEN)
        if not cmd.reason.strip():
            return why(Why.NEED_REASON)
        before, self._undo = self._undo, None
        q = self._q
        assert q is not None and q.last_judgement is not None
        team, correct = q.last_judgement
        score_now = self._scores[team]
        for name, value in before.items():
            setattr(self, name, value)
        restored = self._q
        assert restored is not None
        out.append(JudgementUndone(t_ns=now, question=restored.number, team=team, correct=correct,
                                   delta=self._scores[team] - score_now, score=self._scores[team],
                                   reason=cmd.reason.strip(), scores=dict(self._scores)))
        return None

    # ------------------------------------------------------------------ the fight's end

    def _leader(self) -> tuple[str, ...]:
        best = max(self._scores.values())
        return tuple(t for t, s in self._scores.items() if s == best)

    def _fight_winner(self) -> str | None:
        """The fight's winner by the scores now, or None while it goes on (regmik 1.2-2.3):
        the one leader once a team has the target or the fight's questions are played."""
        leaders = self._leader()
        reached = self.rules.target and self._scores[leaders[0]] >= self.rules.target
        played = self.rules.questions and self._played >= self.rules.questions
        return leaders[0] if (reached or played) and len(leaders) == 1 else None

    def _decided_but_tied(self) -> bool:
        """The fight would be over but the lead is shared: extra questions (regmik 2.3)."""
        leaders = self._leader()
        reached = self.rules.target and self._scores[leaders[0]] >= self.rules.target
        played = self.rules.questions and self._played >= self.rules.questions
        return bool(reached or played) and len(leaders) > 1

    def _check_fight_end(self, now: int, out: list[Output]) -> None:
        """Between questions, the fight's state follows the scores and the questions played."""
        if self._phase not in (Phase.IDLE, Phase.FIGHT_OVER):
            return
        winner = self._fight_winner()
        if winner is not None and winner != self._winner:  # over, or a correction changed who won
            self._phase, self._winner = Phase.FIGHT_OVER, winner
            out.append(FightOver(t_ns=now, fight=self._fight, winner=winner, scores=dict(self._scores),
                                 questions=self._played))
        elif winner is None and self._phase is Phase.FIGHT_OVER:  # a correction reopened it
            self._phase, self._winner = Phase.IDLE, None
        if winner is None and not self._extra and self._decided_but_tied():
            self._extra, self._extra_teams = True, self._leader()  # only they play on (regmik 2.3)
            out.append(ExtraQuestions(t_ns=now, tied=self._leader(), scores=dict(self._scores)))

    def _new_fight(self, now: int, out: list[Output], *, keep_standings: bool) -> None:
        if keep_standings and self._winner is not None:
            self._standings.append((self._winner, dict(self._scores)))
            self._fight += 1
        elif not keep_standings:
            self._standings, self._fight = [], 1
        keep = SendOut.GAME if keep_standings else None
        self._sent_out = {pad: until for pad, until in self._sent_out.items() if until is keep}
        self._scores = {t.id: 0 for t in self.rules.teams}
        self._phase, self._q, self._winner = Phase.IDLE, None, None
        self._played = self._unanswered = 0
        self._extra, self._extra_teams = False, ()
        self._last_decision = self._last_end = None
        out.append(FightStarted(t_ns=now, fight=self._fight, scores=dict(self._scores)))

    def _standings_view(self) -> list[Json]:
        """Each team's fights won and points over the game (the finished fights and this one
        once it is won), best first."""
        fights = [*self._standings, *([(self._winner, self._scores)] if self._winner is not None else [])]
        # A team added after a fight has no score in it.
        rows = [(sum(winner == t.id for winner, _ in fights),
                 sum(scores.get(t.id, 0) for _, scores in fights), t) for t in self.rules.teams]
        rows.sort(key=lambda row: (-row[0], -row[1]))
        return [{"team": t.id, "name": t.name, "fights": len(fights), "won": won, "points": points}
                for won, points, t in rows]

    # ------------------------------------------------------------------ corrections

    def _adjust(self, cmd: AdjustScore, now: int, out: list[Output]) -> Reason | None:
        if cmd.player not in self._scores:
            return why(Why.NO_TEAM_OF_FIGHT, team=cmd.player, teams=", ".join(self._scores))
        if not cmd.reason.strip():
            return why(Why.NEED_REASON)
        if cmd.delta == 0 or abs(cmd.delta) > MAX_ADJUSTMENT:
            return why(Why.ADJUSTMENT_OUT_OF_RANGE, most=MAX_ADJUSTMENT)
        self._scores[cmd.player] += cmd.delta
        out.append(ScoreAdjusted(t_ns=now, team=cmd.player, delta=cmd.delta, score=self._scores[cmd.player],
                                 reason=cmd.reason.strip(), scores=dict(self._scores)))
        q = self._q
        if q is not None and q.ended_at is None and self._reaches_target():
            # The fight is won by the correction, whenever it is made: the question in play is
            # withdrawn (its end checks the fight's).
            self._end_question(q, now, cmd.at, QuestionEnd.CANCELLED, out)
        else:
            self._check_fight_end(now, out)
        return None

    def _reaches_target(self) -> bool:
        """One team alone at the fight's target (a correction may bring it there mid-question)."""
        leaders = self._leader()
        return bool(self.rules.target) and len(leaders) == 1 and self._scores[leaders[0]] >= self.rules.target

    def _benched(self) -> set[str]:
        """The teams that do not play the next question: in extra questions all but the tied
        leaders (regmik 2.3), and a team with every one of its buttons sent out."""
        benched = {t.id for t in self.rules.teams if t.pads and all(p in self._sent_out for p in t.pads)}
        if self._extra:
            benched |= {t.id for t in self.rules.teams if t.id not in self._extra_teams}
        return benched

    def _reverse_refusal(self) -> Reason | None:
        q = self._q
        if self._phase not in (Phase.IDLE, Phase.FIGHT_OVER):
            return why(Why.REVERSE_DURING_QUESTION)
        if q is None or q.ended_at is None:
            return why(Why.REVERSE_NO_QUESTION_IN_FIGHT)
        if q.end_reason is QuestionEnd.CANCELLED:
            return why(Why.REVERSE_WITHDRAWN)
        if q.last_judgement is None:
            return why(Why.REVERSE_NOBODY_ANSWERED)
        if q.reversed:
            return why(Why.REVERSE_ALREADY)
        return None

    def _reverse(self, cmd: Reverse, now: int, out: list[Output]) -> Reason | None:
        """The last answer of the question just played counts the other way: its stake is
        given or taken; the decisions since stand."""
        problem = self._reverse_refusal() or (None if cmd.reason.strip() else why(Why.NEED_REASON))
        if problem is not None:
            return problem
        q = self._q
        assert q is not None and q.last_judgement is not None
        team, was_correct = q.last_judgement
        correct = not was_correct
        delta = q.stake if correct else -q.stake
        self._scores[team] += delta
        q.last_judgement, q.reversed = (team, correct), True
        q.winner = team if correct else None
        self._unanswered = 0 if correct else q.unanswered_before + 1
        out.append(JudgementReversed(t_ns=now, question=q.number, team=team, correct=correct, delta=delta,
                                     score=self._scores[team], reason=cmd.reason.strip(),
                                     scores=dict(self._scores)))
        self._check_fight_end(now, out)
        return None

    # ------------------------------------------------------------------ lamps

    def _update_lamps(self, out: list[Output]) -> None:
        lamps = {pad: LampMode.OFF for pad in self.rules.pads}
        q = self._q
        if q is not None and self._phase is Phase.ANSWERING and q.answerer is not None:
            lamps.update({pad: LampMode.ON for pad in q.answerer.pads})
        elif q is not None and self._phase is Phase.READING:
            for team in self.rules.teams:
                if team.id in q.false_starts:
                    lamps.update({pad: LampMode.BLINK for pad in team.pads})
        if lamps != self._lamps:
            self._lamps = lamps
            out.append(SetLamps(dict(lamps)))



def _view(event: SignalAccepted | QuestionEnded | None) -> dict[str, Json] | None:
    """The snapshot's ``last_decision`` / ``last_end``: the event's JSON without type and t_ns."""
    return None if event is None else event_view(event)
