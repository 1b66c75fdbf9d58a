"""A hand-stepped clock around the «Своя игра» referee, for rules tests (no sleeping)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from console.engine.arbiter import SourceTiming
from console.engine.model import (
    NS_PER_MS,
    NS_PER_S,
    Cue,
    Host,
    HostAction,
    Json,
    LampMode,
    Output,
    PlayCue,
    Press,
    SetLamps,
    Watermark,
)
from console.engine.svoya.referee import SvoyaReferee
from console.engine.svoya.rules import Player, SvoyaRules
from console.playback import VirtualTable
from console.wire import events_json

if TYPE_CHECKING:
    from console.shell.runtime import Console

MS = NS_PER_MS
S = NS_PER_S
MCU = SourceTiming(resolution_ns=1_000, max_delay_ns=5 * MS, ordered=True, resends=True)
GPIO = SourceTiming(resolution_ns=1_000, max_delay_ns=10 * MS, ordered=False)
PLAYERS = (
    Player("p1", "Анна", "mcu:0"),
    Player("p2", "Борис", "mcu:1"),
    Player("p3", "Вера", "mcu:2"),
    Player("p4", "Глеб", "gpio:17"),
)
PAD = {p.id: p.pad for p in PLAYERS}


def make_rules(**overrides: Any) -> SvoyaRules:
    args: dict[str, Any] = {"players": PLAYERS, "sources": {"mcu": MCU, "gpio": GPIO}}
    args.update(overrides)
    return SvoyaRules(**args)


class RecordingTable(VirtualTable):
    """A virtual table that keeps every output, with views of what happened (any button game's
    harness builds on it)."""

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

    def lamps(self) -> dict[str, LampMode]:
        sets = [o.lamps for o in self.outputs if isinstance(o, SetLamps)]
        return sets[-1] if sets else {}


class Table(RecordingTable):
    """Drives a referee: every call says when it happens; timers fire as the clock passes them."""

    def __init__(self, rules: SvoyaRules | None = None, start: int = 1_000 * S) -> None:
        referee = SvoyaReferee(rules or make_rules())
        super().__init__(referee, start)
        self.ref = referee

    def host(self, action: HostAction, at: int | None = None) -> list[Output]:
        return self.deliver(Host(action, self.now if at is None else at))

    def press(self, player: str, at: int | None = None, arrive: int | None = None) -> list[Output]:
        """One player's press, reported the way its source reports a scan."""
        return self.scan([player], at, arrive)

    def scan(self, players: list[str], at: int | None = None,
             arrive: int | None = None) -> list[Output]:
        """Presses seen in one scan at `at`; an ordered source then vouches for that time."""
        at = self.now if at is None else at
        out: list[Output] = []
        for player in players:
            pad = PAD[player]
            out += self.deliver(Press(pad.split(":")[0], pad, at), arrive)
        source = PAD[players[0]].split(":")[0]
        if self.ref.rules.sources[source].ordered:
            out += self.deliver(Watermark(source, at), arrive)
        return out

    @property
    def scores(self) -> dict[str, int]:
        return self.ref.scores

    def start_question(self) -> None:
        self.host(HostAction.NEXT)

    def question(self) -> dict[str, Json] | None:
        """The snapshot's question: None between questions."""
        q = self.ref.snapshot(self.now)["question"]
        assert q is None or isinstance(q, dict)
        return q

    def answerer(self) -> str | None:
        q = self.question()
        answerer = None if q is None else q["answerer"]
        assert answerer is None or isinstance(answerer, str)
        return answerer


def svoya_of(console: Console) -> SvoyaReferee:
    """The «Своя игра» referee a console runs (game.kind = "svoya")."""
    referee = console.referee
    assert isinstance(referee, SvoyaReferee), f"this console runs {console.kind}"
    return referee
