"""One «Брейн-ринг» question in play: the referee's phase and what it keeps about the question.

Contract: `Phase` is where the referee stands between inputs. `Question` is the working record
of one question from its start to its end: when the host said «Время!» (`time_at`: a press
before it is a false start), the count running (`count_from`, `count_ends`, by «Время!» or the
other teams' rebound), the teams out of it, the presses not judged yet, the answering team,
and, once ended, how. It says how it looks on the snapshot (`view`) and, for the host, each
team's first press since the count last opened (`presses`). Pure data: nothing here emits
events or reads a clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from console.engine.brainring.events import QuestionEnd
from console.engine.brainring.rules import Team
from console.engine.model import Json, Press, ns_to_ms


class Phase(StrEnum):
    IDLE = "idle"  # between questions
    READING = "reading"  # the question is read: a press is a false start
    COUNTING = "counting"  # the count runs: the first press of a team in play takes the turn
    ANSWERING = "answering"  # a team answers; the host judges
    FIGHT_OVER = "fight_over"


@dataclass
class Question:
    number: int
    stake: int
    extra: bool
    started_at: int
    unanswered_before: int  # questions nobody took just before this one (the stake's run)
    time_at: int | None = None  # the host's «Время!»
    count_from: int | None = None  # the running count: «Время!», then each rebound
    count_ends: int | None = None
    count_by: str = "time"
    warned: bool = False  # the final beeps of this count were given
    paused_at: int | None = None  # the count is held since (the host's pause)
    pauses: list[tuple[int, int]] = field(default_factory=list)  # the count's past holds: [from, to)
    out: set[str] = field(default_factory=set)  # teams out: a false start or a wrong answer
    # Teams that do not play this question at all: not among the tied leaders of extra
    # questions, or with every one of their buttons sent out.
    benched: set[str] = field(default_factory=set)
    false_starts: set[str] = field(default_factory=set)
    pending: list[Press] = field(default_factory=list)  # presses in the count, not judged yet
    # Presses in the reading: false starts unless «Время!», stamped at or before them, is
    # still on its way (its key's declared delay): judged when it comes or that delay passes.
    early: list[Press] = field(default_factory=list)
    signals: list[Press] = field(default_factory=list)  # the count's presses, for the host
    answerer: Team | None = None
    answer_press: Press | None = None
    remaining_at_press: int | None = None  # what was left of the count when the press stopped it
    ended_at: int | None = None
    end_reason: QuestionEnd | None = None
    winner: str | None = None
    last_judgement: tuple[str, bool] | None = None  # (team, correct) of the last answer judged
    reversed: bool = False

    def in_play(self, teams: tuple[Team, ...]) -> tuple[str, ...]:
        """The teams not out of this question (nor benched from it), in seating order."""
        return tuple(t.id for t in teams if t.id not in self.out and t.id not in self.benched)

    def paused_when(self, at: int) -> bool:
        """Whether a press stamped `at` was made while the count was held."""
        if self.paused_at is not None and at >= self.paused_at:
            return True
        return any(start <= at < end for start, end in self.pauses)

    def status_of(self, team: Team) -> str:
        if self.answerer is not None and self.answerer.id == team.id:
            return "answering"
        if team.id in self.false_starts:
            return "false_start"
        if team.id in self.benched:
            return "benched"
        return "out" if team.id in self.out else "in_play"

    def view(self) -> dict[str, Json]:
        count: dict[str, Json] | None = None
        if self.count_from is not None and self.count_ends is not None:
            count = {"by": self.count_by, "started_at_ns": self.count_from, "ends_ns": self.count_ends,
                     "paused_at_ns": self.paused_at}
        return {
            "number": self.number,
            "stake": self.stake,
            "extra": self.extra,
            "time_called": self.time_at is not None,
            "count": count,
            "answering": self.answerer.id if self.answerer else None,
            "stopped_remaining_ms": (None if self.remaining_at_press is None
                                     else ns_to_ms(self.remaining_at_press)),
            "out": [*sorted(self.out)],
            "false_starts": [*sorted(self.false_starts)],
            "benched": [*sorted(self.benched)],
        }

    def presses(self, pads: dict[str, Team]) -> list[Json]:
        """Each team's first press since the count last opened, in press order, with its
        delay behind the first (the host's photo finish)."""
        firsts: dict[str, int] = {}
        for press in sorted(self.signals, key=lambda p: p.at):
            if self.count_from is None or press.at >= self.count_from:
                firsts.setdefault(pads[press.pad].id, press.at)
        if not firsts:
            return []
        t0 = min(firsts.values())
        return [{"team": team, "delay_ms": ns_to_ms(at - t0)} for team, at in firsts.items()]
