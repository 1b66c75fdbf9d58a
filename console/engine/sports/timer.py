"""The sports «Что? Где? Когда?» timer (seed 003, 5.2-5.3): a pure countdown per question.

Theory of operation: ``idle`` --start («Время!»)--> ``counting`` --60 s--> ``collecting``
--10 s--> ``idle``. The host reads the question and says «Время!» (003 5.3): the count
starts at that key's time (Cue.START). At 50 s the host warns «Осталось 10 секунд»
(Cue.WARNING); at 60 s the discussion ends and teams have 10 s to hand in their answers
(Cue.TIME_UP); at 70 s answer collection closes (an event, no cue). Questions are numbered
through 3 tours of 12 (003 5.2); any further ones are the shoot-out's (003 5.5).

Like the table referees it reads no clock and does no I/O: ``handle(input, now)``,
``on_timer(now)``, ``next_deadline()`` and ``snapshot(now)``; times are host-monotonic ns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from console.engine.action_titles import TITLES as ACTION_TITLES
from console.engine.events import CommandRefused, refusal
from console.engine.model import NS_PER_MS, NS_PER_S, Cue, Json, Output, PlayCue, ns_to_ms
from console.engine.refusals import Reason, Why, why
from console.engine.sports.events import (
    AnswersClosed,
    SportsTimerCancelled,
    SportsTimerPaused,
    SportsTimerResumed,
    SportsTimerStarted,
    SportsTimerWarning,
    SportsTimeUp,
)


class SportsAction(StrEnum):
    START = "start"  # «Время!»: the count of the next question starts at `at`
    CANCEL = "cancel"  # withdraw the running count; the question keeps its number
    PAUSE = "pause"  # hold the running count (a dispute, a dropped sheet)
    RESUME = "resume"  # the held count goes on with what it had left


@dataclass(frozen=True, slots=True)
class SportsHost:
    action: SportsAction
    at: int


@dataclass(frozen=True, slots=True)
class SportsRules:
    count_ns: int = 60 * NS_PER_S  # 003 5.3: a minute after «Время!»
    warning_at_ns: int = 50 * NS_PER_S  # «Осталось 10 секунд» after 50 s
    collection_ns: int = 10 * NS_PER_S  # then 10 s to hand in the answers
    tours: int = 3  # 003 5.2
    questions_per_tour: int = 12

    def __post_init__(self) -> None:
        for name in ("count_ns", "collection_ns", "tours", "questions_per_tour"):
            if getattr(self, name) <= 0:
                raise ValueError(f"SportsRules.{name}: must be positive")
        if not 0 < self.warning_at_ns < self.count_ns:
            raise ValueError("SportsRules.warning_at_ns: must fall inside the count")


class SportsPhase(StrEnum):
    IDLE = "idle"
    COUNTING = "counting"
    COLLECTING = "collecting"


_MARKS = ("warning", "time_up", "closed")


@dataclass(frozen=True, slots=True)
class _Place:
    """Where a question stands: its count, and its tour and number (None in the shoot-out)."""

    question: int
    tour: int | None
    number: int | None
    shootout: bool


class SportsTimer:
    """The per-question countdown of the sports game. See the module docstring."""

    def __init__(self, rules: SportsRules | None = None) -> None:
        self.rules = rules or SportsRules()
        self._question = 0  # questions started so far
        self._started_at: int | None = None
        self._pending: list[tuple[int, str]] = []  # (time, mark) still to fire, in time order
        self._paused_at: int | None = None  # the count is held since (the host's pause)
        self._fired_at = 0  # when the last mark fired: a pause keyed before it holds from it

    @property
    def phase(self) -> SportsPhase:
        if self._started_at is None:
            return SportsPhase.IDLE
        return SportsPhase.COUNTING if self._pending[0][1] != "closed" else SportsPhase.COLLECTING

    @property
    def questions_started(self) -> int:
        """The questions whose count has started (a withdrawn one not counted)."""
        return self._question

    def tour_in_play(self) -> int | None:
        """The tour whose questions are being asked: from its first count to the close of its
        last one's answers (None between tours, before the first and in the shoot-out)."""
        q, per = self._question, self.rules.questions_per_tour
        if q == 0 or q > self.rules.tours * per:
            return None
        if self._started_at is None and q % per == 0:
            return None  # the tour's last question is over
        return (q - 1) // per + 1

    def handle(self, inp: SportsHost, now: int) -> list[Output]:
        """Take one host action at `now`; due marks fire first."""
        out = self.on_timer(now)
        if not isinstance(inp, SportsHost):  # another game's input (a button, a pedal): refused
            out.append(_error(now, type(inp).__name__, why(Why.TIMER_ACTIONS_ONLY), self.phase))
        elif inp.action is SportsAction.START:
            self._start(inp.at, now, out)
        elif inp.action is SportsAction.CANCEL:
            self._cancel(now, out)
        elif inp.action is SportsAction.PAUSE:
            self._pause(inp.at, now, out)
        elif inp.action is SportsAction.RESUME:
            self._resume(inp.at, now, out)
        out += self.on_timer(now)
        return out

    def on_timer(self, now: int) -> list[Output]:
        """Fire the marks due at `now`: the warning, the end of the minute, the end of collection."""
        out: list[Output] = []
        while self._paused_at is None and self._pending and self._pending[0][0] <= now:
            self._fired_at, mark = self._pending.pop(0)
            if mark == "warning" and self._pending[0][0] <= now:
                continue  # overtaken by the end of the minute: no stale warning
            out += self._fire(mark, now)
        if not self._pending:
            self._started_at = None
        return out

    def next_deadline(self) -> int | None:
        return self._pending[0][0] if self._pending and self._paused_at is None else None

    def handle_all(self, inputs: Sequence[SportsHost], now: int) -> list[Output]:
        """Inputs that arrived together at `now` (the runtime's engine contract)."""
        out: list[Output] = []
        for inp in inputs:
            out += self.handle(inp, now)
        return out

    def running_timer(self) -> tuple[str, int] | None:
        """The count a display shows: the minute, then the collection of answers."""
        start = self._started_at
        if start is None:
            return None
        end = start + self.rules.count_ns
        if self.phase is SportsPhase.COLLECTING:
            end += self.rules.collection_ns
        return self.phase.value, end

    def snapshot(self, now: int) -> dict[str, Json]:
        place = self._numbering(self._question)
        view: dict[str, Json] = {"phase": self.phase.value, "question": place.question, "tour": place.tour,
                                 "number": place.number, "shootout": place.shootout}
        timer = self.running_timer()
        if timer is None:
            view["timer"] = None
        else:
            kind, end = timer
            assert self._started_at is not None
            r = self.rules
            # The whole schedule, so a board that joins late marks the cue moments and counts
            # from the console's deadlines, not from when the message reached it.
            left_from = now if self._paused_at is None else self._paused_at  # a held count stands
            view["timer"] = {"kind": kind, "started_at_ns": self._started_at, "ends_ns": end,
                             "remaining_ms": max(0, (end - left_from) // NS_PER_MS),
                             "paused": self._paused_at is not None, "paused_at_ns": self._paused_at,
                             "warning_ns": self._started_at + r.warning_at_ns,
                             "deadline_ns": self._started_at + r.count_ns,
                             "collection_ends_ns": self._started_at + r.count_ns + r.collection_ns}
        return view

    def host_snapshot(self, now: int) -> dict[str, Json]:
        """`snapshot` plus the host's (published on host/state): the actions `handle` would take
        now (start between counts, cancel while one runs) and no question (the sports game's
        questions are read from the host's own paper, 003 5.3)."""
        if self._started_at is None:
            actions = [SportsAction.START]
        else:
            held = SportsAction.RESUME if self._paused_at is not None else SportsAction.PAUSE
            actions = [held, SportsAction.CANCEL]
        return {**self.snapshot(now), "host_actions": [a.value for a in actions], "host_question": None}

    # ------------------------------------------------------------------ internals

    def _start(self, at: int, now: int, out: list[Output]) -> None:
        if self._started_at is not None:
            running = why(Why.QUESTION_STILL_RUNNING, question=self._question, phase=_PHASE_RU[self.phase])
            out.append(_error(now, "start", running, self.phase))
            return
        r = self.rules
        self._question += 1
        self._started_at = at
        times = (at + r.warning_at_ns, at + r.count_ns, at + r.count_ns + r.collection_ns)
        self._pending = list(zip(times, _MARKS, strict=True))
        place = self._numbering(self._question)
        out.append(SportsTimerStarted(t_ns=now, question=place.question, tour=place.tour, number=place.number,
                                      shootout=place.shootout, started_at_ns=at, warning_ns=times[0],
                                      deadline_ns=times[1], collection_ends_ns=times[2],
                                      seconds=r.count_ns / NS_PER_S,
                                      collection_seconds=r.collection_ns / NS_PER_S))
        out.append(PlayCue(Cue.START))

    def _cancel(self, now: int, out: list[Output]) -> None:
        if self._started_at is None:
            out.append(_error(now, "cancel", why(Why.COUNT_NOT_RUNNING), self.phase))
            return
        question = self._question
        self._question -= 1  # the replacement question takes its number
        self._started_at, self._pending, self._paused_at = None, [], None
        out.append(SportsTimerCancelled(t_ns=now, question=question))

    def _pause(self, at: int, now: int, out: list[Output]) -> None:
        if self._started_at is None or self._paused_at is not None:
            out.append(_error(now, "pause", why(Why.PAUSE_ONLY_WHILE_COUNTING), self.phase))
            return
        self._paused_at = max(at, self._fired_at)  # what has been announced stands
        timer = self.running_timer()
        assert timer is not None
        _, end = timer
        out.append(SportsTimerPaused(t_ns=now, question=self._question, paused_at_ns=self._paused_at,
                                     remaining_ms=ns_to_ms(max(0, end - self._paused_at))))

    def _resume(self, at: int, now: int, out: list[Output]) -> None:
        if self._paused_at is None or self._started_at is None:
            out.append(_error(now, "resume", why(Why.COUNT_NOT_PAUSED), self.phase))
            return
        resumed = max(at, self._paused_at)
        held = resumed - self._paused_at
        self._paused_at = None
        self._started_at += held
        self._pending = [(t + held, mark) for t, mark in self._pending]
        r = self.rules
        start = self._started_at
        out.append(SportsTimerResumed(t_ns=now, question=self._question, resumed_at_ns=resumed,
                                      paused_ms=ns_to_ms(held), started_at_ns=start,
                                      warning_ns=start + r.warning_at_ns, deadline_ns=start + r.count_ns,
                                      collection_ends_ns=start + r.count_ns + r.collection_ns))

    def _fire(self, mark: str, now: int) -> list[Output]:
        assert self._started_at is not None
        r = self.rules
        deadline = self._started_at + r.count_ns
        question, seconds = self._question, r.count_ns / NS_PER_S
        if mark == "warning":
            return [SportsTimerWarning(t_ns=now, question=question, deadline_ns=deadline, seconds=seconds,
                                       text="Осталось 10 секунд", remaining_s=(deadline - now) / NS_PER_S),
                    PlayCue(Cue.WARNING)]
        closes = deadline + r.collection_ns
        if mark == "time_up":
            return [SportsTimeUp(t_ns=now, question=question, deadline_ns=deadline, seconds=seconds,
                                 text="Сдайте ответы", collection_ends_ns=closes,
                                 collection_seconds=r.collection_ns / NS_PER_S),
                    PlayCue(Cue.TIME_UP)]
        return [AnswersClosed(t_ns=now, question=question, collection_ends_ns=closes)]

    def _numbering(self, question: int) -> _Place:
        """Question `question` as tour and number in tour (003 5.2), or a shoot-out question (5.5)."""
        per, tours = self.rules.questions_per_tour, self.rules.tours
        if question == 0 or question > per * tours:
            return _Place(question, None, None, question > per * tours)
        return _Place(question, (question - 1) // per + 1, (question - 1) % per + 1, False)


_PHASE_RU = {SportsPhase.IDLE: "ждёт", SportsPhase.COUNTING: "отсчёт", SportsPhase.COLLECTING: "сбор ответов"}


# Its own button calls a withdrawn count so (console/data/host-sports.js).
TITLES = {**ACTION_TITLES, SportsAction.CANCEL.value: "Снять отсчёт"}


def _error(now: int, action: str, reason: Reason, phase: SportsPhase) -> CommandRefused:
    return refusal(now, action, reason, phase.value, TITLES)
