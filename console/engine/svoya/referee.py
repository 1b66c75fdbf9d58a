"""The «Своя игра» referee: a pure state machine over timestamped inputs.

Theory of operation (seed 004, appendix «Правила Своей игры», clauses 1-11):

``idle`` --next--> ``reading`` --reading_finished--> ``open`` (the 7-s window runs)
``reading``/``open`` --first eligible press settles--> ``answering``
``answering`` --correct--> question over; --wrong or 3-s timeout--> ``await_reset``
``await_reset`` --reset--> ``reading`` (reading not finished) or ``open``
A question ends on a correct answer, when every player has answered wrongly, or when the
window closes with nobody in play signalling in time (App.10).

Every decision is taken on the time an input happened at its source (``at``), never on
arrival order: presses are buffered and judged against the phase boundaries by their
stamps, and a window closes only when every source has reported through its end (see
``arbiter``). The engine reads no clock and does no I/O: ``handle(input, now)`` and
``on_timer(now)`` return outputs, ``next_deadline()`` says when to call ``on_timer``.
The same inputs at the same ``now`` always give the same outputs.

Between questions the host may change the fight's players (`RosterChange`,
console/engine/svoya/roster.py) and the pack it plays (`ChoosePack`,
console/engine/svoya/pack_choice.py: a new fight at the chosen round).

The host may also correct (seed 004 4.1-4.3): change a score with a reason at any time
(`AdjustScore`), and reverse the judgement of the question just played, once, after it ended
and before the next one starts (`Reverse`). Corrections change scores only: the decisions
taken since stand.

`host_snapshot` is the public `snapshot` plus what only the host sees: the actions the referee
would take now (`host_actions`, from the same checks that refuse them), the pack's card of the
question in play (`host_question`) and the presses of the question (`presses`).

The pieces: this module is the state machine (the host's actions, settling, the answer clock,
the question's end, corrections); `svoya_presses` judges presses and picks the first,
`svoya_question` keeps the question in play and how it looks on the snapshot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from operator import attrgetter
from typing import Literal

from console.engine.corrections import MAX_ADJUSTMENT, AdjustScore, Correction, Reverse, Undo
from console.engine.events import CommandRefused, refusal
from console.engine.model import (
    Cue,
    Host,
    HostAction,
    Input,
    Json,
    LampMode,
    Output,
    PlayCue,
    Press,
    SetLamps,
    SourceLink,
    Watermark,
)
from console.engine.refusals import Reason, Why, why
from console.engine.svoya import roster
from console.engine.svoya.events import (
    AnswerClockStarted,
    AnswerJudged,
    AnswerStarted,
    EndReason,
    GameOver,
    GameStarted,
    JudgementReversed,
    JudgementUndone,
    PackChosen,
    PadAwaited,
    PadBound,
    PlayerAdded,
    PlayerRemoved,
    PlayerRenamed,
    QuestionEnded,
    QuestionStarted,
    ReadingFinished,
    ScoreAdjusted,
    SignalAccepted,
    SignalsHeld,
    SignalsReset,
    SignalsResumed,
    SignalsWaitOver,
    ThemeSkipped,
    decision_view,
    end_view,
    reversal_view,
)
from console.engine.svoya.pack_choice import CHOOSE_PACK, ChoosePack
from console.engine.svoya.presses import PressJudge, ignored
from console.engine.svoya.question import Phase, Question
from console.engine.svoya.roster import RosterAction, RosterChange
from console.engine.svoya.rules import AnswerClock, Player, SvoyaRules

__all__ = ["Phase", "SvoyaInput", "SvoyaReferee"]

SvoyaInput = Input | SourceLink | Correction | RosterChange | ChoosePack

_PRESS_AT = attrgetter("at")


@dataclass(frozen=True, slots=True)
class _UndoPoint:
    """How things stood just before a judgement, so that the host may take it back at once."""

    question: Question  # a copy of the question before the verdict
    player: str
    correct: bool
    delta: int  # what the verdict did to the player's score
    position: tuple[int, int]  # the theme and question index before it (a question's end moves them)
    last_end: QuestionEnded | None
    last_reversal: JudgementReversed | None


class SvoyaReferee:
    """Referee of one «Своя игра» fight. See the module docstring for the contract."""

    def __init__(self, rules: SvoyaRules, *, pack_problem: str | None = None,
                 pack_skipped: tuple[str, ...] = ()) -> None:
        self.rules = rules
        # Why the configured pack is not played (it could not be read): the console reports it.
        self.pack_problem = pack_problem
        self.pack_skipped = pack_skipped  # the pack's cells left out, each with why (reported too)
        self._presses = PressJudge(rules)
        self._arbiter = self._presses.arbiter  # shared: watermarks and window closing use it too
        self._scores = {p.id: 0 for p in rules.players}
        self._phase = Phase.IDLE
        self._q: Question | None = None
        self._previous: Question | None = None  # the question before `_q`, for presses delivered late
        self._theme_index = 0
        self._question_index = 0
        self._fight_start = 0  # the theme this fight began at (next_fight goes on in the pack)
        self._lamps: dict[str, LampMode] = {}
        self._all_lamps_off = {p.pad: LampMode.OFF for p in rules.players}
        self._last_decision: SignalAccepted | None = None
        self._last_end: QuestionEnded | None = None
        self._last_reversal: JudgementReversed | None = None  # of the question `_last_end` ended
        self._wait_over: set[str] = set()  # lost sources whose wait is over: the host decides
        self._undo: _UndoPoint | None = None  # the judgement just given, while it may be taken back
        self._awaiting: RosterChange | None = None  # an add or a bind waiting for a free button's press
        self._retired: set[str] = set()  # ids of players removed (never given again)
        self.pack_file = ""  # the file of a pack chosen on the tablet ("": the config's, or none)
        self._pack_view: dict[str, Json] | None = None  # ... and what the host's screen says of it

    # ------------------------------------------------------------------ public API

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def scores(self) -> dict[str, int]:
        return dict(self._scores)

    def minuses_in_play(self) -> dict[str, int]:
        """The points each player lost on the question in play by a wrong answer (App.3), by
        player; empty between questions."""
        q = self._q
        if q is None or self._phase in (Phase.IDLE, Phase.GAME_OVER):
            return {}
        return {player: q.value for player in sorted(q.out)}

    def handle(self, inp: SvoyaInput, now: int) -> list[Output]:
        """Take one input at host time `now`; due timers fire first."""
        return self.handle_all((inp,), now)

    def handle_all(self, inputs: Sequence[SvoyaInput], now: int) -> list[Output]:
        """Take inputs that arrived together at `now` (e.g. one MCU scan and its watermark).

        The same as handling them one by one at `now`, except that decisions wait for the
        last of them: a tie inside one scan is seen whole before anyone is declared first.
        """
        out: list[Output] = []
        self._settle(now, out)
        for inp in inputs:
            if isinstance(inp, Press):
                self._on_press(inp, now, out)
            elif isinstance(inp, Watermark):
                self._arbiter.note(inp.source, inp.up_to, inp.lost_from)
            elif isinstance(inp, SourceLink):
                self._on_link(inp, out)
            elif isinstance(inp, RosterChange):
                self._on_roster(inp, now, out)
            elif isinstance(inp, ChoosePack):
                self._on_pack(inp, now, out)
            else:
                self._on_host(inp, now, out)
                self._settle(now, out)  # a host action may change what the next input means
        self._settle(now, out)
        self._update_lamps(out)
        return out

    def on_timer(self, now: int) -> list[Output]:
        """Fire whatever is due at `now` (settling a first press, closing windows)."""
        out: list[Output] = []
        self._settle(now, out)
        self._update_lamps(out)
        return out

    def next_deadline(self) -> int | None:
        """The host time at which `on_timer` must be called next, or None."""
        q = self._q
        if q is None:
            return None
        deadlines: list[int] = []
        lost = self._arbiter.lost_sources()
        if lost and self._phase in (Phase.READING, Phase.OPEN, Phase.AWAIT_RESET):
            # Nothing a lost source may still report on settles by the clock: only the end of
            # the wait for it is due; after it, the host decides (cancel or end_question).
            waits = [since + self.rules.lost_source_wait_ns for source, since in lost.items()
                     if source not in self._wait_over]
            return min(waits) if waits else None
        candidates = self._candidates()
        if candidates and self._phase in (Phase.READING, Phase.OPEN):
            deadlines.append(self._arbiter.first_deadline(min(p.at for p in candidates)))
        window_end = self._window_end()
        if window_end is not None and self._phase is Phase.OPEN:
            deadlines.append(self._arbiter.settle_deadline(window_end))
        if window_end is not None and self._phase is Phase.AWAIT_RESET:
            deadlines.append(
                max(self._arbiter.settle_deadline(window_end), window_end + self.rules.host_max_delay_ns)
            )
        if self._phase is Phase.ANSWERING and q.answer_deadline is not None and not q.answer_started:
            deadlines.append(q.answer_deadline + self.rules.host_max_delay_ns)
        return min(deadlines) if deadlines else None

    def snapshot(self, now: int) -> dict[str, Json]:
        """The whole visible state, for the retained MQTT topic and the terminal view."""
        q = self._q
        question = q.view() if q is not None and self._phase not in (Phase.IDLE, Phase.GAME_OVER) else None
        return {
            "phase": self._phase.value,
            "players": [
                {
                    "id": p.id,
                    "name": p.name,
                    "pad": p.pad,
                    "score": self._scores[p.id],
                    "status": self._player_status(p),
                }
                for p in self.rules.players
            ],
            "question": question,
            "next": self._next_position(),
            "timer": self._timer_view(now),
            "last_decision": None if self._last_decision is None else decision_view(self._last_decision),
            "last_end": None if self._last_end is None else end_view(self._last_end),
            "last_reversal": None if self._last_reversal is None else reversal_view(self._last_reversal),
        }

    def host_snapshot(self, now: int) -> dict[str, Json]:
        """`snapshot` plus what only the host may see (published on host/state): the actions
        accepted now, the pack's card of the question in play, and its presses."""
        q = self._q
        in_play = q is not None and self._phase not in (Phase.IDLE, Phase.GAME_OVER)
        return {
            **self.snapshot(now),
            "host_actions": list(self.host_actions(now)),
            "host_question": self._host_question() if in_play else None,
            "presses": q.presses(self.rules.pads) if q is not None and in_play else [],
            "awaiting_pad": None if self._awaiting is None else {
                "player": self._awaiting.player or None, "name": self._awaiting_name()},
            "pack": self._pack_view,
        }

    def host_actions(self, now: int) -> tuple[str, ...]:
        """The host command actions the referee would take at `now` (with valid arguments)."""
        plain = [a.value for a in HostAction if self._refusal(a, now) is None]
        corrections = [AdjustScore.ACTION.value]  # any time (a known player, a reason)
        if self._undo is not None:
            corrections.append(Undo.ACTION)
        if self._reverse_refusal() is None:
            corrections.append(Reverse.ACTION.value)
        between = self._phase in (Phase.IDLE, Phase.GAME_OVER)
        players = len(self.rules.players)
        full, fewest = players >= 4, players <= 2  # a fight has 2 to 4 players (004 App.1)
        changes = [a.value for a in RosterAction if between and not (a is RosterAction.ADD and full)
                   and not (a is RosterAction.REMOVE and fewest)]
        return (*plain, *corrections, *changes, *([CHOOSE_PACK] if between else []))

    def _host_question(self) -> dict[str, Json] | None:
        q = self._q
        assert q is not None
        card = self.rules.card(q.theme - 1, q.number - 1)
        if card is None:
            return None
        return {"theme": q.theme_name, "value": q.value, "text": card.text, "answer": card.answer,
                "comment": card.comment, "wrong": list(card.wrong), "media": list(card.media),
                "special": {"kind": card.special, "note": card.special_note} if card.special else None,
                "options": list(card.options)}

    # ------------------------------------------------------------------ presses

    def _on_press(self, press: Press, now: int, out: list[Output]) -> None:
        player = self.rules.pads.get(press.pad)
        if player is None and self._awaiting is not None and self._arbiter.knows(press.source):
            self._bind_pressed(press, now, out)
            return
        if not self._arbiter.knows(press.source) or player is None:
            message = why(Why.UNBOUND_PAD_PLAYER, pad=press.pad).text
            out.append(CommandRefused(t_ns=now, message=message,
                                      details={"source": press.source, "pad": press.pad, "at_ns": press.at}))
            return
        # No watermark from the press itself: an ordered source reports one scan as several
        # presses followed by a Watermark, so a tie inside the scan is seen whole.
        q = self._q
        if q is not None and q.ended_at is None and press.at >= q.announced_at:
            q.pending.append(press)
            if player.id not in q.out:  # the host's list of presses shows players in play only
                q.signals.append(press)
            return
        ended = self._ended_question_at(press.at)
        if ended is not None:
            # Made during a question that has ended since: judged as it would have been had it
            # arrived in time, never as a false start before the next one (App.4, habit 1).
            reason = self._presses.refusal_after_end(ended, press, player)
            out.append(ignored(now, ended, press, player, reason))
            return
        out.append(self._presses.false_start(press, player, now))

    # ------------------------------------------------------------------ the players (roster.py)

    def _on_roster(self, change: RosterChange, now: int, out: list[Output]) -> None:
        problem = self._roster_refusal(change)
        if problem is not None:
            out.append(refusal(now, change.action.value, problem, self._phase.value))
        elif change.action is RosterAction.BIND or (change.action is RosterAction.ADD and not change.pad):
            self._awaiting = change  # the next press of a free button gives it
            out.append(PadAwaited(t_ns=now, player=change.player or None, name=self._awaiting_name()))
        else:
            self._change_players(change, now, out)

    def _on_pack(self, choice: ChoosePack, now: int, out: list[Output]) -> None:
        """The host's pack and round: a new fight on it, from the round's first theme."""
        if self._phase not in (Phase.IDLE, Phase.GAME_OVER):
            out.append(refusal(now, CHOOSE_PACK, why(Why.PACK_BETWEEN_QUESTIONS),
                               self._phase.value))
            return
        self.rules = replace(self.rules, pack=choice.themes)
        self._presses.set_rules(self.rules)
        self.pack_file = choice.file
        self.pack_problem = None  # the config's pack, unread, is not the one played any more
        self.pack_skipped = choice.skipped
        self._undo = None
        self._awaiting = None
        chosen = PackChosen(t_ns=now, file=choice.file.rsplit("/", 1)[-1], name=choice.name,
                            round=choice.round, round_name=choice.round_name, theme=choice.start + 1,
                            themes=len(choice.themes))
        self._pack_view = {"file": chosen.file, "name": chosen.name, "round": chosen.round,
                           "round_name": chosen.round_name}
        out.append(chosen)
        self._host_new_game(now, out, start=choice.start)

    def _roster_refusal(self, change: RosterChange) -> Reason | None:
        if self._phase not in (Phase.IDLE, Phase.GAME_OVER):
            return why(Why.PLAYERS_BETWEEN_QUESTIONS)
        return roster.refusal(change, self.rules)

    def _awaiting_name(self) -> str:
        change = self._awaiting
        assert change is not None
        if change.action is RosterAction.ADD:
            return change.name.strip()
        return next(p.name for p in self.rules.players if p.id == change.player)

    def _bind_pressed(self, press: Press, now: int, out: list[Output]) -> None:
        """A free button pressed while one is awaited: it is the awaited player's."""
        change, self._awaiting = self._awaiting, None
        assert change is not None
        change = replace(change, pad=press.pad)
        problem = self._roster_refusal(change)
        if problem is not None:
            out.append(refusal(now, change.action.value, problem, self._phase.value))
        else:
            self._change_players(change, now, out)

    def _change_players(self, change: RosterChange, now: int, out: list[Output]) -> None:
        before = {p.id: p for p in self.rules.players}
        # Never an id a player of this evening had: the journal and the protocol name by it.
        taken = {*before, *self._retired}
        new_id = next(f"p{i}" for i in range(1, len(taken) + 2) if f"p{i}" not in taken)
        players = roster.apply(change, self.rules.players, new_id)
        bench = self.rules.bench & {p.id for p in players}
        bench = bench if len(bench) < len(players) else frozenset()  # never the whole fight on it
        self.rules = replace(self.rules, players=players, bench=bench)
        self._presses.set_rules(self.rules)
        self._all_lamps_off = {p.pad: LampMode.OFF for p in players}
        self._undo = None  # the judgement before is not the last thing done any more
        match change.action:
            case RosterAction.RENAME:
                out.append(PlayerRenamed(t_ns=now, player=change.player, name=change.name.strip(),
                                         was=before[change.player].name))
            case RosterAction.ADD:
                self._scores[new_id] = 0
                out.append(PlayerAdded(t_ns=now, player=new_id, name=change.name.strip(), pad=change.pad,
                                       scores=dict(self._scores)))
            case RosterAction.REMOVE:
                score = self._scores.pop(change.player)
                self._retired.add(change.player)
                if self._awaiting is not None and self._awaiting.player == change.player:
                    self._awaiting = None  # a button awaited for them is not any more
                out.append(PlayerRemoved(t_ns=now, player=change.player, name=before[change.player].name,
                                         score=score, scores=dict(self._scores)))
            case RosterAction.BIND:
                out.append(PadBound(t_ns=now, player=change.player, pad=change.pad,
                                    was=before[change.player].pad))

    def _ended_question_at(self, t: int) -> Question | None:
        """The ended question (the last one or the one before) that was in play at time `t`."""
        for q in (self._q, self._previous):
            if q is not None and q.ended_at is not None and q.announced_at <= t <= q.ended_at:
                return q
        return None

    def _candidates(self) -> list[Press]:
        if self._q is None or self._phase not in (Phase.READING, Phase.OPEN):
            return []
        return self._q.pending

    # ------------------------------------------------------------------ settling and timers

    def _on_link(self, link: SourceLink, out: list[Output]) -> None:
        """A button source lost or back (see the `SignalsHeld` and `SignalsResumed` events)."""
        if not self._arbiter.knows(link.source):
            return
        counting = self._q is not None and self._phase in (Phase.READING, Phase.OPEN, Phase.AWAIT_RESET)
        if not link.up:
            self._arbiter.lose(link.source, link.at)
            since = self._arbiter.lost_sources().get(link.source)
            if counting and since is not None:
                out.append(SignalsHeld(t_ns=link.at, source=link.source, since_ns=since,
                                       wait_ends_ns=since + self.rules.lost_source_wait_ns))
            return
        since = self._arbiter.lost_sources().get(link.source)
        self._arbiter.restore(link.source, link.at)
        self._wait_over.discard(link.source)
        if counting and since is not None:
            out.append(SignalsResumed(t_ns=link.at, source=link.source,
                                      held_ms=round((link.at - since) / 1e6, 3), given_up=False))

    def _wait_for_lost(self, now: int, out: list[Output]) -> None:
        """A lost source not back by the end of its wait: the host is asked (SignalsWaitOver)."""
        for source, since in self._arbiter.lost_sources().items():
            if now >= since + self.rules.lost_source_wait_ns and source not in self._wait_over:
                self._wait_over.add(source)
                out.append(SignalsWaitOver(t_ns=now, source=source, held_ms=round((now - since) / 1e6, 3)))

    def _end_without_lost(self, now: int, out: list[Output]) -> None:
        """The host's end_question: the lost sources are no longer waited for."""
        for source, since in self._arbiter.lost_sources().items():
            self._arbiter.give_up(source)
            out.append(SignalsResumed(t_ns=now, source=source, held_ms=round((now - since) / 1e6, 3),
                                      given_up=True))
        self._wait_over.clear()

    def _settle(self, now: int, out: list[Output]) -> None:
        q = self._q
        if q is None or self._phase in (Phase.IDLE, Phase.GAME_OVER):
            return
        if self._phase in (Phase.READING, Phase.OPEN, Phase.AWAIT_RESET):
            self._wait_for_lost(now, out)
        self._presses.judge_pending(q, self._phase, now, out)
        if self._phase in (Phase.READING, Phase.OPEN) and q.pending:
            t0 = min(map(_PRESS_AT, q.pending))
            if self._arbiter.first_settled(t0, now):
                self._accept_first(q, now, out)
                return
        if self._phase is Phase.ANSWERING:
            self._check_answer_clock(q, now, out)
            return
        window_end = self._window_end()
        if window_end is None or not self._arbiter.settled(window_end, now):
            return
        # Presses made up to `now` belong to this question: after the window they are late (App.4).
        if self._phase is Phase.OPEN and not q.pending:
            self._end_question(now, now, EndReason.NO_SIGNAL, out)
        elif self._phase is Phase.AWAIT_RESET and now >= window_end + self.rules.host_max_delay_ns:
            # The host never reset in time, so no later signal could count (App.8, App.10.3).
            self._end_question(now, now, EndReason.NO_SIGNAL, out)

    def _window_end(self) -> int | None:
        return None if self._q is None else self._q.window_end(self.rules.signal_window_ns)

    def _accept_first(self, q: Question, now: int, out: list[Output]) -> None:
        """The first eligible signal takes the turn (App.5); ties by the configured policy."""
        decision = self._presses.take_first(q, now)
        self._phase = Phase.ANSWERING
        self._last_decision = decision
        out.append(decision)
        out.append(PlayCue(Cue.SIGNAL))
        if self.rules.answer_clock is AnswerClock.LAMP:
            self._start_answer_clock(q, now, "lamp", now, out)

    def _start_answer_clock(self, q: Question, at: int, by: Literal["lamp", "host", "short_form"],
                            now: int, out: list[Output]) -> None:
        """The answerer must begin within 3 s (App.7) of `at` (the naming, lamp or short form)."""
        q.answer_deadline = at + self.rules.answer_window_ns
        assert q.answerer is not None
        out.append(AnswerClockStarted(
            t_ns=now,
            started_at_ns=at,
            player=q.answerer.id,
            by=by,
            deadline_ns=q.answer_deadline,
            seconds=self.rules.answer_window_ns / 1e9,
        ))

    def _check_answer_clock(self, q: Question, now: int, out: list[Output]) -> None:
        if q.answer_deadline is None or q.answer_started:
            return
        if now >= q.answer_deadline + self.rules.host_max_delay_ns:
            out.append(PlayCue(Cue.TIME_UP))
            self._judge(q, correct=False, at=q.answer_deadline, now=now, how="timeout", out=out)

    # ------------------------------------------------------------------ host actions

    def _on_host(self, cmd: Host | Correction, now: int, out: list[Output]) -> None:
        if isinstance(cmd, AdjustScore):
            action, problem = cmd.ACTION.value, self._adjust_score(cmd, now, out)
        elif isinstance(cmd, Reverse):
            action, problem = cmd.ACTION.value, self._reverse(cmd, now, out)
            if problem is None:
                self._undo = None
        elif isinstance(cmd, Undo):
            action, problem = cmd.ACTION, self._take_back(cmd, now, out)
        else:
            action, problem = cmd.action.value, self._refusal(cmd.action, cmd.at)
            if problem is None:
                self._undo = None  # the game moves on: the last judgement stands
                self._take(cmd.action, cmd.at, now, out)
        if problem is not None:
            out.append(refusal(now, action, problem, self._phase.value))

    def _refusal(self, action: HostAction, at: int) -> Reason | None:
        """Why the host's `action` at `at` would be refused now, or None: the one check both
        for taking it and for listing it in `host_actions`."""
        q = self._q
        phase = self._phase
        answering = phase is Phase.ANSWERING and q is not None
        match action:
            case HostAction.NEXT:
                if phase is Phase.GAME_OVER:
                    return why(Why.FIGHT_OVER_NEW_GAME)
                if phase is not Phase.IDLE:
                    return why(Why.QUESTION_IN_PLAY)
            case HostAction.READING_FINISHED:
                if phase is not Phase.READING or q is None:
                    return why(Why.NOT_READING)
            case HostAction.NAME:
                if not answering or q is None:
                    return why(Why.NOBODY_ANSWERING)
                if self.rules.answer_clock is AnswerClock.LAMP:
                    return why(Why.NAME_NOT_NEEDED_LAMP_CLOCK)
                if q.answer_deadline is not None:
                    return why(Why.ANSWERER_ALREADY_NAMED)
            case HostAction.SHORT_FORM:
                if not answering or q is None:
                    return why(Why.NOBODY_ANSWERING)
                if not q.reading_stopped:
                    return why(Why.SHORT_FORM_NOT_NEEDED)
                if q.answer_started:
                    return why(Why.ANSWER_ALREADY_STARTED)
            case HostAction.ANSWER_STARTED:
                if not answering or q is None or q.answerer is None:
                    return why(Why.NOBODY_ANSWERING)
                if q.answer_started:
                    return why(Why.ANSWER_ALREADY_STARTED)
                if q.answer_deadline is not None and at > q.answer_deadline:
                    return why(Why.ANSWER_TIME_OVER)
            case HostAction.CORRECT | HostAction.WRONG:
                if not answering or q is None:
                    return why(Why.NOBODY_ANSWERING)
                if q.answer_deadline is not None and not q.answer_started and at > q.answer_deadline:
                    return why(Why.ANSWER_TIME_OVER)
            case HostAction.RESET:
                if phase is not Phase.AWAIT_RESET or q is None:
                    return why(Why.RESET_ONLY_AFTER_WRONG)
            case HostAction.CANCEL:
                if self._doubtful_end() is None and (q is None or phase in (Phase.IDLE, Phase.GAME_OVER)):
                    return why(Why.NO_QUESTION_IN_PLAY)
            case HostAction.NEW_GAME:
                pass
            case HostAction.END_GAME:
                if phase is Phase.GAME_OVER:
                    return why(Why.FIGHT_ALREADY_OVER)
                if phase is not Phase.IDLE:
                    return why(Why.QUESTION_IN_PLAY)
            case HostAction.SKIP_THEME:
                if phase is Phase.GAME_OVER:
                    return why(Why.FIGHT_OVER)
                if phase is not Phase.IDLE:
                    return why(Why.QUESTION_IN_PLAY)
            case HostAction.NEXT_FIGHT:
                if phase is not Phase.IDLE and phase is not Phase.GAME_OVER:
                    return why(Why.QUESTION_IN_PLAY)
                if self._next_fight_start() is None:
                    return why(Why.PACK_PLAYED_OUT)
            case HostAction.END_QUESTION:
                if q is None or phase not in (Phase.READING, Phase.OPEN, Phase.AWAIT_RESET):
                    return why(Why.NO_QUESTION_IN_PLAY)
                if not self._arbiter.lost_sources():
                    return why(Why.ALL_BUTTONS_CONNECTED)
        return None

    def _take(self, action: HostAction, at: int, now: int, out: list[Output]) -> None:
        """Carry out `action`, which `_refusal` allowed."""
        q = self._q
        match action:
            case HostAction.NEXT:
                self._awaiting = None  # a button not pressed for a player by now is not awaited
                self._wait_over.clear()  # a source still lost is waited for (and asked) anew
                self._host_next(at, now, out)
            case HostAction.READING_FINISHED:
                assert q is not None
                q.reading_end = at
                self._phase = Phase.OPEN
                out.append(ReadingFinished(t_ns=now, window_ends_ns=self._window_end(),
                                           players_in_play=q.in_play(self.rules.players)))
            case HostAction.NAME | HostAction.SHORT_FORM:
                assert q is not None
                self._start_answer_clock(q, at, "host" if action is HostAction.NAME else "short_form",
                                         now, out)
            case HostAction.ANSWER_STARTED:
                assert q is not None and q.answerer is not None
                q.answer_started = True
                out.append(AnswerStarted(t_ns=now, player=q.answerer.id))
            case HostAction.END_QUESTION:
                self._end_without_lost(now, out)
            case HostAction.CORRECT | HostAction.WRONG:
                assert q is not None
                self._judge(q, correct=action is HostAction.CORRECT, at=at, now=now, how="host", out=out)
            case HostAction.RESET:
                assert q is not None
                q.counting_from = at
                q.reading_stopped = False
                self._phase = Phase.OPEN if q.reading_end is not None else Phase.READING
                # With no new signal and the reading unfinished, the host goes on reading (App.9).
                out.append(SignalsReset(t_ns=now, window_ends_ns=self._window_end(),
                                        players_in_play=q.in_play(self.rules.players)))
            case HostAction.CANCEL if (doubtful := self._doubtful_end()) is not None:
                self._withdraw_ended(doubtful, now, out)
            case HostAction.CANCEL:
                self._end_question(now, at, EndReason.CANCELLED, out)
            case HostAction.NEW_GAME:
                self._host_new_game(now, out)
            case HostAction.END_GAME:
                self._game_over(now, out)  # the host ends the fight early (with themes = 0, the only end)
            case HostAction.SKIP_THEME:
                skipped = len(self.rules.theme_values(self._theme_index)) - self._question_index
                out.append(ThemeSkipped(t_ns=now, theme=self._theme_index + 1,
                                        theme_name=self.rules.theme_name(self._theme_index), skipped=skipped))
                self._undo = None  # the judgement before is not the last thing done any more
                self._next_theme(now, out)
            case HostAction.NEXT_FIGHT:
                start = self._next_fight_start()
                assert start is not None
                self._host_new_game(now, out, start=start)

    def _doubtful_end(self) -> Question | None:
        """The question just ended with no signal over a span where a source may have lost a
        press (inputs_lost), while nothing has happened since: the host may still withdraw it."""
        q, end = self._q, self._last_end
        if (self._phase is Phase.IDLE and q is not None and end is not None and end.inputs_lost
                and end.reason is EndReason.NO_SIGNAL and q.end_reason is EndReason.NO_SIGNAL):
            return q
        return None

    def _withdraw_ended(self, q: Question, now: int, out: list[Output]) -> None:
        """Withdraw the doubtful question after its end, with no score change (nobody scored):
        it is not counted as played, so it is played again, as after a reset the reading may
        begin again (004 App.9; the organisers' call where presses may be lost, IV 4.4)."""
        if self._question_index > 0:
            self._question_index -= 1
        else:
            self._theme_index -= 1
            self._question_index = len(self.rules.theme_values(self._theme_index)) - 1
        q.end_reason = EndReason.CANCELLED
        end = QuestionEnded(t_ns=now, reason=EndReason.CANCELLED, theme=q.theme, number=q.number,
                            value=q.value, winner=None, scores=dict(self._scores))
        self._last_end, self._last_reversal = end, None
        out.append(end)

    def _host_next(self, at: int, now: int, out: list[Output]) -> None:
        value = self.rules.theme_values(self._theme_index)[self._question_index]
        self._previous = self._q
        self._q = Question(
            theme=self._theme_index + 1,
            number=self._question_index + 1,
            value=value,
            announced_at=at,
            counting_from=at,
            theme_name=self.rules.theme_name(self._theme_index),
        )
        self._phase = Phase.READING
        self._last_decision = None
        out.append(QuestionStarted(t_ns=now, announced_at_ns=at, theme=self._q.theme,
                                   number=self._q.number, value=value, theme_name=self._q.theme_name))

    def _judge(self, q: Question, *, correct: bool, at: int, now: int, how: Literal["host", "timeout"],
               out: list[Output]) -> None:
        """Score the answer (App.3) and move on (App.8, App.10)."""
        player = q.answerer
        assert player is not None
        delta = q.value if correct else -q.value
        self._undo = _UndoPoint(question=replace(q, out=set(q.out), pending=list(q.pending),
                                                 signals=list(q.signals)),
                                player=player.id, correct=correct, delta=delta,
                                position=(self._theme_index, self._question_index),
                                last_end=self._last_end, last_reversal=self._last_reversal)
        self._scores[player.id] += delta
        q.last_judgement = (player.id, correct)
        out.append(AnswerJudged(t_ns=now, player=player.id, correct=correct, by=how, value=q.value,
                                delta=delta, score=self._scores[player.id]))
        # The answerer's press stays on an ended question: a press delivered after the end is
        # measured against it like one delivered before (see `PressJudge.refusal_after_end`).
        if correct:
            self._end_question(now, at, EndReason.CORRECT, out, winner=player.id)
            return
        q.out.add(player.id)
        q.last_wrong_at = at
        q.last_wrong = (player.id, how)
        if len(q.out | self.rules.bench) == len(self.rules.players):  # App.10: all who play
            self._end_question(now, at, EndReason.ALL_WRONG, out)
            return
        q.answerer = q.answer_press = None
        q.answer_deadline = None
        self._phase = Phase.AWAIT_RESET

    def _host_new_game(self, now: int, out: list[Output], *, start: int = 0) -> None:
        """A new fight from theme index `start` (0: the pack's first; next_fight: its next)."""
        self._scores = {p.id: 0 for p in self.rules.players}
        self._presses.new_game()
        self._theme_index, self._question_index, self._fight_start = start, 0, start
        self._q = self._previous = None
        self._phase = Phase.IDLE
        self._last_decision = self._last_end = self._last_reversal = None
        out.append(GameStarted(t_ns=now, scores=dict(self._scores), theme=start + 1))

    def _next_fight_start(self) -> int | None:
        """Where a next fight of the pack would begin: the first theme not begun (a theme
        partly played is left), or None when the pack has no theme left."""
        start = self._theme_index + (1 if self._question_index > 0 else 0)
        if self.rules.pack and start >= len(self.rules.pack):
            return None
        return start

    def _fight_end(self) -> int | None:
        """The theme index this fight ends before: `themes` from its start, within the pack
        (None: no end but the host's)."""
        themes = self.rules.themes
        end = None if themes is None else self._fight_start + themes
        if self.rules.pack:
            end = len(self.rules.pack) if end is None else min(end, len(self.rules.pack))
        return end

    # ------------------------------------------------------------------ corrections (004 4.1-4.3)

    def _adjust_score(self, cmd: AdjustScore, now: int, out: list[Output]) -> Reason | None:
        """A score changed by hand, for a reason, at any time; nothing else changes."""
        if cmd.player not in self._scores:
            return why(Why.NO_PLAYER, player=cmd.player, players=", ".join(self._scores))
        if not cmd.reason.strip():
            return why(Why.NEED_REASON)
        if cmd.delta == 0 or abs(cmd.delta) > MAX_ADJUSTMENT:
            return why(Why.ADJUSTMENT_OUT_OF_RANGE, most=MAX_ADJUSTMENT)
        self._scores[cmd.player] += cmd.delta
        out.append(ScoreAdjusted(t_ns=now, player=cmd.player, delta=cmd.delta,
                                 score=self._scores[cmd.player], reason=cmd.reason.strip(),
                                 scores=dict(self._scores)))
        return None

    def _reverse_refusal(self) -> Reason | None:
        """Why the last judgement cannot be reversed now, or None (004 4.1, 4.3)."""
        q = self._q
        if self._phase not in (Phase.IDLE, Phase.GAME_OVER) and q is not None:
            return why(Why.REVERSE_DURING_QUESTION)
        if q is None or q.ended_at is None:
            return why(Why.REVERSE_NO_QUESTION_IN_GAME)
        if q.end_reason is EndReason.CANCELLED:
            return why(Why.REVERSE_WITHDRAWN)
        if q.last_judgement is None:
            return why(Why.REVERSE_NOBODY_ANSWERED)
        if q.reversed:
            return why(Why.REVERSE_ALREADY_SVOYA)
        return None

    def _reverse(self, cmd: Reverse, now: int, out: list[Output]) -> Reason | None:
        """The last answer of the question just played counts the other way (004 4.1-4.2):
        its score is undone and redone; the question stays over, later decisions stand."""
        problem = self._reverse_refusal() or (None if cmd.reason.strip() else why(Why.NEED_REASON))
        if problem is not None:
            return problem
        q = self._q
        assert q is not None and q.last_judgement is not None
        player, was_correct = q.last_judgement
        correct = not was_correct
        delta = 2 * q.value if correct else -2 * q.value
        self._scores[player] += delta
        q.last_judgement, q.reversed = (player, correct), True
        event = JudgementReversed(t_ns=now, theme=q.theme, number=q.number, player=player,
                                  correct=correct, value=q.value, delta=delta,
                                  score=self._scores[player], winner=player if correct else None,
                                  reason=cmd.reason.strip(), scores=dict(self._scores))
        self._last_reversal = event
        out.append(event)
        return None

    def _take_back(self, cmd: Undo, now: int, out: list[Output]) -> Reason | None:
        """The judgement just given is taken back (a mistaken key): its score is undone, the
        answerer has the turn again and no clock runs (the answer was given: the host judges
        anew). Allowed until the game moves on (a reset, the next question, a withdrawal)."""
        point = self._undo
        if point is None:
            return why(Why.NOTHING_TO_UNDO)
        if not cmd.reason.strip():
            return why(Why.NEED_REASON)
        self._undo = None
        q = point.question
        q.answer_started = True
        self._q = q
        self._scores[point.player] -= point.delta
        self._theme_index, self._question_index = point.position
        self._phase = Phase.ANSWERING
        self._last_end, self._last_reversal = point.last_end, point.last_reversal
        out.append(JudgementUndone(t_ns=now, theme=q.theme, number=q.number, player=point.player,
                                   correct=point.correct, delta=-point.delta,
                                   score=self._scores[point.player], reason=cmd.reason.strip(),
                                   scores=dict(self._scores)))
        return None

    # ------------------------------------------------------------------ question end

    def _end_question(self, now: int, at: int, reason: EndReason, out: list[Output],
                      winner: str | None = None) -> None:
        """End the question in play at `at`; presses made up to `at` still belong to it."""
        q = self._q
        assert q is not None
        q.ended_at, q.ended_in, q.end_reason = at, self._phase, reason
        for press in q.pending:  # not decided yet (the host withdrew the question, or ended it with them)
            player = self.rules.pads[press.pad]
            out.append(ignored(now, q, press, player, self._presses.refusal_after_end(q, press, player)))
        if reason is EndReason.NO_SIGNAL:
            out.append(PlayCue(Cue.TIME_UP))
        # "Nobody signalled" is a decision too: over a span where a source may have lost a
        # press (issue 10), it says so, like signal_accepted.
        lost = self._arbiter.lost_between(q.counting_from, at) if reason is EndReason.NO_SIGNAL else ()
        end = QuestionEnded(t_ns=now, reason=reason, theme=q.theme, number=q.number, value=q.value,
                            winner=winner, scores=dict(self._scores), inputs_lost=lost or None)
        self._last_end, self._last_reversal = end, None
        out.append(end)
        q.pending = []
        self._phase = Phase.IDLE
        if reason is not EndReason.CANCELLED:
            self._advance(now, out)

    def _advance(self, now: int, out: list[Output]) -> None:
        """Questions of a theme go in ascending order (App.2); then the next theme."""
        self._question_index += 1
        if self._question_index < len(self.rules.theme_values(self._theme_index)):
            return
        self._next_theme(now, out)

    def _next_theme(self, now: int, out: list[Output]) -> None:
        """On to the next theme's first question; past the fight's last theme, it is over."""
        self._question_index = 0
        self._theme_index += 1
        end = self._fight_end()
        if end is not None and self._theme_index >= end:
            self._game_over(now, out)

    def _game_over(self, now: int, out: list[Output]) -> None:
        """The fight is over: its ranking by the scores (a tie keeps the seating order)."""
        self._phase = Phase.GAME_OVER
        ranking = sorted(self.rules.players, key=lambda p: -self._scores[p.id])
        out.append(GameOver(t_ns=now, scores=dict(self._scores), ranking=tuple(p.id for p in ranking)))

    # ------------------------------------------------------------------ views

    def _update_lamps(self, out: list[Output]) -> None:
        lamps = dict(self._all_lamps_off)
        q = self._q
        if self._phase is Phase.ANSWERING and q is not None and q.answerer is not None:
            lamps[q.answerer.pad] = LampMode.ON
        if lamps != self._lamps:
            self._lamps = lamps
            out.append(SetLamps(dict(lamps)))

    def _player_status(self, p: Player) -> str:
        q = self._q
        if q is None or self._phase in (Phase.IDLE, Phase.GAME_OVER):
            return "idle"
        return q.status_of(p)

    def _next_position(self) -> dict[str, Json] | None:
        if self._phase is Phase.GAME_OVER:
            return None
        return {
            "theme": self._theme_index + 1,
            "theme_name": self.rules.theme_name(self._theme_index),
            "number": self._question_index + 1,
            "value": self.rules.theme_values(self._theme_index)[self._question_index],
            "themes": self._fight_end(),
        }

    def running_timer(self) -> tuple[str, int] | None:
        """The countdown a display shows: ("signal" | "answer", its end), or None."""
        q = self._q
        if q is None:
            return None
        if self._phase is Phase.ANSWERING and not q.answer_started and q.answer_deadline is not None:
            return "answer", q.answer_deadline
        window_end = self._window_end()
        if self._phase in (Phase.OPEN, Phase.AWAIT_RESET) and window_end is not None:
            return "signal", window_end
        return None

    def _timer_view(self, now: int) -> dict[str, Json] | None:
        timer = self.running_timer()
        if timer is None:
            return None
        kind, ends = timer
        lost = self._arbiter.lost_sources()
        if kind == "signal" and lost:
            # The window waits for a lost button source (nothing after its last word is decided):
            # the count stands still at what it had left when the source was lost.
            since = min(lost.values())
            return {"kind": kind, "ends_ns": ends, "remaining_ms": max(0, (ends - since) // 1_000_000),
                    "paused": True}
        return {"kind": kind, "ends_ns": ends, "remaining_ms": max(0, (ends - now) // 1_000_000)}

