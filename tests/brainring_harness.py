"""A hand-stepped clock around the «Брейн-ринг» referee, for rules tests (no sleeping)."""

from __future__ import annotations

from typing import Any

from console.engine.arbiter import SourceTiming
from console.engine.brainring.referee import BrainringReferee
from console.engine.brainring.rules import BrainringAction, BrainringHost, BrainringRules, Team
from console.engine.model import (
    NS_PER_MS,
    NS_PER_S,
    Output,
    Press,
    Watermark,
)
from tests.engine_harness import RecordingTable

MS = NS_PER_MS
S = NS_PER_S
MCU = SourceTiming(resolution_ns=1_000, max_delay_ns=5 * MS, ordered=True, resends=True)
GPIO = SourceTiming(resolution_ns=1_000, max_delay_ns=10 * MS, ordered=False)
# Two teams of the default fight on the MCU box (two pads each: §5, a team's pads are one
# signal) and a third, for the clubs' 3-team fights, on GPIO.
TEAMS = (Team("t1", "Совы", ("mcu:0", "mcu:1")), Team("t2", "Ежи", ("mcu:2", "mcu:3")))
THIRD = Team("t3", "Лисы", ("gpio:17",))


def make_rules(*, three: bool = False, **overrides: Any) -> BrainringRules:
    teams = (*TEAMS, THIRD) if three else TEAMS
    sources = {"mcu": MCU, "gpio": GPIO} if three else {"mcu": MCU}
    args: dict[str, Any] = {"teams": teams, "sources": sources}
    args.update(overrides)
    return BrainringRules(**args)


class Ring(RecordingTable):
    """Drives a referee: every call says when it happens; timers fire as the clock passes them."""

    def __init__(self, rules: BrainringRules | None = None, start: int = 1_000 * S) -> None:
        referee = BrainringReferee(rules or make_rules())
        super().__init__(referee, start)
        self.ref = referee

    def host(self, action: BrainringAction | str, at: int | None = None) -> list[Output]:
        return self.deliver(BrainringHost(BrainringAction(action), self.now if at is None else at))

    def press(self, *pads: str, at: int | None = None, arrive: int | None = None) -> list[Output]:
        """Presses seen in one scan at `at`; an ordered source then vouches for that time."""
        at = self.now if at is None else at
        out: list[Output] = []
        for pad in pads:
            out += self.deliver(Press(pad.split(":")[0], pad, at), arrive)
        source = pads[0].split(":")[0]
        if self.ref.rules.sources[source].ordered:
            out += self.deliver(Watermark(source, at), arrive)
        return out

    def question_read(self) -> None:
        """The question is started and read; the host says «Время!»."""
        self.host("next")
        self.advance(5 * S)
        self.host("time")

    def state(self) -> dict[str, Any]:
        snapshot: dict[str, Any] = self.ref.host_snapshot(self.now)
        return snapshot

    @property
    def scores(self) -> dict[str, int]:
        return self.ref.scores
