"""A hand-stepped clock around the ChGK referee and the sports timer, for rules tests (no sleeping).

The stepping is `console.playback.VirtualTable`'s: every deadline an engine announces fires at
its exact time as the clock passes it, then the input is handled at its arrival time.
"""

from __future__ import annotations

from typing import Any, Protocol

from console.engine.chgk.referee import ChgkReferee
from console.engine.chgk.rules import ChgkAction, ChgkHost, ChgkRules, PickSource, SectorPicked, Team
from console.engine.model import NS_PER_MS, NS_PER_S, Cue, Output, PlayCue
from console.engine.sports.timer import SportsAction, SportsHost, SportsRules, SportsTimer
from console.wire import events_json

MS = NS_PER_MS
S = NS_PER_S
A = ChgkAction
TEAMS = (
    Team("t1", "Совы", main=True),
    Team("t2", "Ежи", main=True),
    Team("t3", "Гости", main=False),
    Team("t4", "Лисы", main=True),
)


class Engine(Protocol):
    def on_timer(self, now: int) -> list[Output]: ...

    def next_deadline(self) -> int | None: ...


class EngineClock:
    """Virtual time for one engine: deadlines fire on time as the clock passes them."""

    def __init__(self, engine: Engine, start: int) -> None:
        self.engine = engine
        self.now = start
        self.outputs: list[Output] = []

    def advance_to(self, t: int) -> None:
        while (deadline := self.engine.next_deadline()) is not None and deadline <= t:
            self.now = max(self.now, deadline)
            self.outputs += self.engine.on_timer(self.now)
        self.now = max(self.now, t)

    def advance(self, dt: int) -> None:
        self.advance_to(self.now + dt)

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [e for e in events_json(self.outputs) if kind is None or e["type"] == kind]

    def last(self, kind: str) -> dict[str, Any]:
        found = self.events(kind)
        assert found, f"no {kind!r} event; events: {[e['type'] for e in self.events()]}"
        return found[-1]

    def cues(self) -> list[Cue]:
        return [o.cue for o in self.outputs if isinstance(o, PlayCue)]


def make_rules(**overrides: Any) -> ChgkRules:
    args: dict[str, Any] = {"teams": TEAMS, "table_team": "t1"}
    args.update(overrides)
    return ChgkRules(**args)


class Table(EngineClock):
    """Drives a ChGK referee: every call says when it happens."""

    def __init__(self, rules: ChgkRules | None = None, start: int = 1_000 * S) -> None:
        self.ref = ChgkReferee(rules or make_rules())
        super().__init__(self.ref, start)

    def deliver(self, inp: SectorPicked | ChgkHost, arrive: int | None = None) -> list[Output]:
        self.advance_to(self.now if arrive is None else arrive)
        out = self.ref.handle(inp, self.now)
        self.outputs += out
        return out

    def host(self, action: ChgkAction, at: int | None = None, **args: Any) -> list[Output]:
        return self.deliver(ChgkHost(action, self.now if at is None else at, **args))

    def pick(self, sector: int, source: PickSource = PickSource.TOP) -> list[Output]:
        return self.deliver(SectorPicked(sector, self.now, source))

    def play(self, sector: int, *answers: bool) -> None:
        """Pick `sector` and play each part: «Время!», 5 s of discussion, the verdict."""
        self.pick(sector)
        for correct in answers:
            self.host(A.START_TIMER)
            self.advance(5 * S)
            self.host(A.ANSWER_CORRECT if correct else A.ANSWER_WRONG)

    def snap(self) -> dict[str, Any]:
        return self.ref.snapshot(self.now)

    def host_snap(self) -> dict[str, Any]:
        return self.ref.host_snapshot(self.now)

    def public_events(self) -> list[dict[str, Any]]:
        return [e for e in self.events() if e.get("audience") != "host"]

    @property
    def score(self) -> tuple[int, int]:
        s = self.ref.score
        return s["team"], s["club"]


class SportsClock(EngineClock):
    def __init__(self, rules: SportsRules | None = None, start: int = 1_000 * S) -> None:
        self.timer = SportsTimer(rules)
        super().__init__(self.timer, start)

    def host(self, action: SportsAction, at: int | None = None) -> list[Output]:
        out = self.timer.handle(SportsHost(action, self.now if at is None else at), self.now)
        self.outputs += out
        return out
