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

The pieces: this module is the state machine (the host's actions, settling, the answer clock,
the question's end); `svoya_presses` judges presses and picks the first, `svoya_question`
keeps the question in play and how it looks on the snapshot.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import Literal

from console.engine.events import CommandRefused
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
    Watermark,
)
from console.engine.rules import AnswerClock, Player, SvoyaRules
from console.engine.svoya_events import (
    AnswerClockStarted,
    AnswerJudged,
    AnswerStarted,
    EndReason,
    GameOver,
    GameStarted,
    QuestionEnded,
    QuestionStarted,
    ReadingFinished,
    SignalAccepted,
    SignalsReset,
    decision_view,
    end_view,
)
from console.engine.svoya_presses import PressJudge, ignored
from console.engine.svoya_question import Phase, Question

__all__ = ["Phase", "SvoyaReferee"]

_PRESS_AT = attrgetter("at")


class SvoyaReferee:
    """Referee of one «Своя игра» fight. See the module docstring for the contract."""

    def __init__(self, rules: SvoyaRules) -> None:
        self.rules = rules
        self._presses = PressJudge(rules)
        self._arbiter = self._presses.arbiter  # shared: watermarks and window closing use it too
        self._scores = {p.id: 0 for p in rules.players}
        self._phase = Phase.IDLE
        self._q: Question | None = None
        self._previous: Question | None = None  # the question before `_q`, for presses delivered late
        self._theme_index = 0
        self._question_index = 0
        self._lamps: dict[str, LampMode] = {}
        self._all_lamps_off = {p.pad: LampMode.OFF for p in rules.players}
        self._last_decision: SignalAccepted | None = None
        self._last_end: QuestionEnded | None = None

    # ------------------------------------------------------------------ public API

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def scores(self) -> dict[str, int]:
        return dict(self._scores)

    def handle(self, inp: Input, now: int) -> list[Output]:
        """Take one input at host time `now`; due timers fire first."""
        return self.handle_all((inp,), now)

    def handle_all(self, inputs: Sequence[Input], now: int) -> list[Output]:
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
                self._arbiter.note(inp.source, inp.up_to)
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
        }

    def host_snapshot(self, now: int) -> dict[str, Json]:
        """`snapshot` plus what only the host may see (published on host/state)."""
        return self.snapshot(now)

    # ------------------------------------------------------------------ presses

    def _on_press(self, press: Press, now: int, out: list[Output]) -> None:
        player = self.rules.pads.get(press.pad)
        if not self._arbiter.knows(press.source) or player is None:
            message = f"press from unknown pad {press.pad!r}: no player is on it"
            out.append(CommandRefused(t_ns=now, message=message,
                                      details={"source": press.source, "pad": press.pad, "at_ns": press.at}))
            return
        # No watermark from the press itself: an ordered source reports one scan as several
        # presses followed by a Watermark, so a tie inside the scan is seen whole.
        q = self._q
        if q is not None and q.ended_at is None and press.at >= q.announced_at:
            q.pending.append(press)
            return
        ended = self._ended_question_at(press.at)
        if ended is not None:
            # Made during a question that has ended since: judged as it would have been had it
            # arrived in time, never as a false start before the next one (App.4, habit 1).
            reason = self._presses.refusal_after_end(ended, press, player)
            out.append(ignored(now, ended, press, player, reason))
            return
        out.append(self._presses.false_start(press, player, now))

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

    def _settle(self, now: int, out: list[Output]) -> None:
        q = self._q
        if q is None or self._phase in (Phase.IDLE, Phase.GAME_OVER):
            return
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

    def _on_host(self, cmd: Host, now: int, out: list[Output]) -> None:
        handler = {
            HostAction.NEXT: self._host_next,
            HostAction.READING_FINISHED: self._host_reading_finished,
            HostAction.NAME: self._host_name,
            HostAction.SHORT_FORM: self._host_short_form,
            HostAction.ANSWER_STARTED: self._host_answer_started,
            HostAction.CORRECT: self._host_correct,
            HostAction.WRONG: self._host_wrong,
            HostAction.RESET: self._host_reset,
            HostAction.CANCEL: self._host_cancel,
            HostAction.NEW_GAME: self._host_new_game,
        }[cmd.action]
        problem = handler(cmd.at, now, out)
        if problem is not None:
            out.append(CommandRefused(t_ns=now, message=f"{cmd.action.value!r} is not allowed now: {problem}",
                                      details={"action": cmd.action.value, "phase": self._phase.value}))

    def _host_next(self, at: int, now: int, out: list[Output]) -> str | None:
        if self._phase is Phase.GAME_OVER:
            return "the fight is over (new_game starts another)"
        if self._phase is not Phase.IDLE:
            return "a question is in play (finish it or cancel it first)"
        value = self.rules.values[self._question_index]
        self._previous = self._q
        self._q = Question(
            theme=self._theme_index + 1,
            number=self._question_index + 1,
            value=value,
            announced_at=at,
            counting_from=at,
        )
        self._phase = Phase.READING
        self._last_decision = None
        out.append(QuestionStarted(t_ns=now, announced_at_ns=at, theme=self._q.theme,
                                   number=self._q.number, value=value))
        return None

    def _host_reading_finished(self, at: int, now: int, out: list[Output]) -> str | None:
        q = self._q
        if self._phase is not Phase.READING or q is None:
            return "no question is being read"
        q.reading_end = at
        self._phase = Phase.OPEN
        out.append(ReadingFinished(t_ns=now, window_ends_ns=self._window_end(),
                                   players_in_play=q.in_play(self.rules.players)))
        return None

    def _host_name(self, at: int, now: int, out: list[Output]) -> str | None:
        q = self._q
        if self._phase is not Phase.ANSWERING or q is None:
            return "nobody has the turn"
        if self.rules.answer_clock is AnswerClock.LAMP:
            return "the answer clock already started when the lamp lit"
        if q.answer_deadline is not None:
            return "the answerer has already been named"
        self._start_answer_clock(q, at, "host", now, out)
        return None

    def _host_short_form(self, at: int, now: int, out: list[Output]) -> str | None:
        q = self._q
        if self._phase is not Phase.ANSWERING or q is None:
            return "nobody has the turn"
        if not q.reading_stopped:
            return "the question was read to the end; there is no short form to give (App.6)"
        if q.answer_started:
            return "the answer has already begun"
        self._start_answer_clock(q, at, "short_form", now, out)
        return None

    def _host_answer_started(self, at: int, now: int, out: list[Output]) -> str | None:
        q = self._q
        if self._phase is not Phase.ANSWERING or q is None or q.answerer is None:
            return "nobody has the turn"
        if q.answer_started:
            return "the answer has already begun"
        if q.answer_deadline is not None and at > q.answer_deadline:
            return "the 3 s had already run out"
        q.answer_started = True
        out.append(AnswerStarted(t_ns=now, player=q.answerer.id))
        return None

    def _host_correct(self, at: int, now: int, out: list[Output]) -> str | None:
        return self._host_judge(True, at, now, out)

    def _host_wrong(self, at: int, now: int, out: list[Output]) -> str | None:
        return self._host_judge(False, at, now, out)

    def _host_judge(self, correct: bool, at: int, now: int, out: list[Output]) -> str | None:
        q = self._q
        if self._phase is not Phase.ANSWERING or q is None:
            return "nobody has the turn"
        if q.answer_deadline is not None and not q.answer_started and at > q.answer_deadline:
            return "the 3 s had already run out"
        self._judge(q, correct=correct, at=at, now=now, how="host", out=out)
        return None

    def _judge(self, q: Question, *, correct: bool, at: int, now: int, how: Literal["host", "timeout"],
               out: list[Output]) -> None:
        """Score the answer (App.3) and move on (App.8, App.10)."""
        player = q.answerer
        assert player is not None
        delta = q.value if correct else -q.value
        self._scores[player.id] += delta
        out.append(AnswerJudged(t_ns=now, player=player.id, correct=correct, by=how, value=q.value,
                                delta=delta, score=self._scores[player.id]))
        # The answerer's press stays on an ended question: a press delivered after the end is
        # measured against it like one delivered before (see `PressJudge.refusal_after_end`).
        if correct:
            self._end_question(now, at, EndReason.CORRECT, out, winner=player.id)
            return
        q.out.add(player.id)
        q.last_wrong_at = at
        if len(q.out) == len(self.rules.players):
            self._end_question(now, at, EndReason.ALL_WRONG, out)
            return
        q.answerer = q.answer_press = None
        q.answer_deadline = None
        self._phase = Phase.AWAIT_RESET

    def _host_reset(self, at: int, now: int, out: list[Output]) -> str | None:
        q = self._q
        if self._phase is not Phase.AWAIT_RESET or q is None:
            return "there is no wrong answer to reset"
        q.counting_from = at
        q.reading_stopped = False
        self._phase = Phase.OPEN if q.reading_end is not None else Phase.READING
        # With no new signal and the reading unfinished, the host goes on reading (App.9).
        out.append(SignalsReset(t_ns=now, window_ends_ns=self._window_end(),
                                players_in_play=q.in_play(self.rules.players)))
        return None

    def _host_cancel(self, at: int, now: int, out: list[Output]) -> str | None:
        if self._q is None or self._phase in (Phase.IDLE, Phase.GAME_OVER):
            return "no question is in play"
        self._end_question(now, at, EndReason.CANCELLED, out)
        return None

    def _host_new_game(self, at: int, now: int, out: list[Output]) -> str | None:
        self._scores = {p.id: 0 for p in self.rules.players}
        self._presses.new_game()
        self._theme_index = self._question_index = 0
        self._q = self._previous = None
        self._phase = Phase.IDLE
        self._last_decision = self._last_end = None
        out.append(GameStarted(t_ns=now, scores=dict(self._scores)))
        return None

    # ------------------------------------------------------------------ question end

    def _end_question(self, now: int, at: int, reason: EndReason, out: list[Output],
                      winner: str | None = None) -> None:
        """End the question in play at `at`; presses made up to `at` still belong to it."""
        q = self._q
        assert q is not None
        q.ended_at, q.ended_in = at, self._phase
        for press in q.pending:  # not decided yet (the host withdrew the question, or ended it with them)
            player = self.rules.pads[press.pad]
            out.append(ignored(now, q, press, player, self._presses.refusal_after_end(q, press, player)))
        if reason is EndReason.NO_SIGNAL:
            out.append(PlayCue(Cue.TIME_UP))
        end = QuestionEnded(t_ns=now, reason=reason, theme=q.theme, number=q.number, value=q.value,
                            winner=winner, scores=dict(self._scores))
        self._last_end = end
        out.append(end)
        q.pending = []
        self._phase = Phase.IDLE
        if reason is not EndReason.CANCELLED:
            self._advance(now, out)

    def _advance(self, now: int, out: list[Output]) -> None:
        """Questions of a theme go in ascending order (App.2); then the next theme."""
        self._question_index += 1
        if self._question_index < len(self.rules.values):
            return
        self._question_index = 0
        self._theme_index += 1
        if self.rules.themes is not None and self._theme_index >= self.rules.themes:
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
            "number": self._question_index + 1,
            "value": self.rules.values[self._question_index],
            "themes": self.rules.themes,
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
        return {"kind": kind, "ends_ns": ends, "remaining_ms": max(0, (ends - now) // 1_000_000)}

