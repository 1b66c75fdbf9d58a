"""The parameters of a «Своя игра» fight: who plays, on which pads, and every duration/policy.

Defaults follow the seed (004, appendix «Правила Своей игры»); everything is set from
config. Durations are host-monotonic nanoseconds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from console.engine.arbiter import SourceTiming
from console.engine.model import NS_PER_S


class FalseStartPolicy(StrEnum):
    IGNORE = "ignore"  # 004 App.4: a press before the value is announced simply does not count
    LOCKOUT = "lockout"  # TV (2 s) / SIGame (3 s): the presser is also locked out for a while


class AnswerClock(StrEnum):
    HOST = "host"  # the 3 s run from the host's "name" key (004 App.5, App.7)
    LAMP = "lamp"  # the 3 s run from the moment the answerer's lamp lights


class TiePolicy(StrEnum):
    RANDOM = "random"  # a seeded draw, logged, so replay gives the same answer
    PAD_ORDER = "pad_order"  # the player listed first in the config wins


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str
    pad: str  # "<source>:<pad index>", e.g. "mcu:0"


@dataclass(frozen=True, slots=True)
class SvoyaRules:
    players: tuple[Player, ...]
    sources: Mapping[str, SourceTiming]
    values: tuple[int, ...] = (10, 20, 30, 40, 50)
    themes: int | None = None  # themes in the fight; None: until the host stops
    signal_window_ns: int = 7 * NS_PER_S
    answer_window_ns: int = 3 * NS_PER_S
    answer_clock: AnswerClock = AnswerClock.HOST
    false_start: FalseStartPolicy = FalseStartPolicy.IGNORE
    false_start_lockout_ns: int = 2 * NS_PER_S
    tie_policy: TiePolicy = TiePolicy.RANDOM
    tie_window_ns: int | None = None  # None: the coarsest source resolution
    host_max_delay_ns: int = 20_000_000  # worst-case delay of host keys (answer-clock closing)
    seed: int = 0
    pads: Mapping[str, Player] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 2 <= len(self.players) <= 4:
            raise ValueError(f"a fight has 2 to 4 players (004 App.1), got {len(self.players)}")
        ids = [p.id for p in self.players]
        if len(set(ids)) != len(ids):
            raise ValueError("player ids must be unique")
        pads = {p.pad: p for p in self.players}
        if len(pads) != len(self.players):
            raise ValueError("two players share a pad")
        for p in self.players:
            source = p.pad.split(":", 1)[0]
            if source not in self.sources:
                raise ValueError(f"player {p.id!r} is on pad {p.pad!r} of unknown source {source!r}")
        if not self.values or any(b <= a for a, b in zip(self.values, self.values[1:], strict=False)):
            raise ValueError("question values must be given in ascending order (004 App.2)")
        if self.themes is not None and self.themes < 1:
            raise ValueError("themes must be at least 1")
        object.__setattr__(self, "pads", pads)
