"""The parameters of a «Своя игра» fight: who plays, on which pads, and every duration/policy.

Defaults follow the seed (004, appendix «Правила Своей игры»); everything is set from
config. Durations are host-monotonic nanoseconds. With a question pack (`pack`), the fight
plays the pack's themes in order, at the pack's values (`theme_values`, `theme_name`,
`card`); without one, numbered themes at `values`. A `HostCard` is for the host only.
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
class HostCard:
    """One question of a pack as the host sees it: never on the hall's state or events."""

    value: int
    text: str
    answer: str  # every accepted answer, the main one first
    comment: str = ""
    wrong: tuple[str, ...] = ()
    media: tuple[str, ...] = ()
    special: str = ""  # a SIGame special cell (console.packs: "cat", "auction", ...), "" if none
    special_note: str = ""  # what the pack says of it (the cat's theme and price)
    options: tuple[str, ...] = ()  # a select question's options


@dataclass(frozen=True, slots=True)
class PackTheme:
    """A theme of the pack, its questions in the order they are asked (ascending, App.2)."""

    name: str
    cards: tuple[HostCard, ...]


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
    lost_source_wait_ns: int = 30 * NS_PER_S  # a question waits this long for a lost button source
    seed: int = 0
    pack: tuple[PackTheme, ...] = ()  # the pack's themes; () = numbered themes at `values`
    # Players who hold a seat but do not play (the quartet's stand-in for an empty second seat:
    # App.1 needs two): out of every question from its start, so App.10's «all answered
    # wrongly» is reached without them.
    bench: frozenset[str] = frozenset()
    pads: Mapping[str, Player] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 2 <= len(self.players) <= 4:
            raise ValueError(f"a fight has 2 to 4 players (004 App.1), got {len(self.players)}")
        ids = [p.id for p in self.players]
        twice = next((i for i in ids if ids.count(i) > 1), None)
        if twice is not None:
            raise ValueError(f"player id {twice!r} is given to two players: each needs its own id")
        pads: dict[str, Player] = {}
        for p in self.players:
            if p.pad in pads:
                raise ValueError(f"pad {p.pad!r} is both {pads[p.pad].id!r}'s and {p.id!r}'s: "
                                 "each player needs a button of their own")
            pads[p.pad] = p
        for p in self.players:
            source = p.pad.split(":", 1)[0]
            if source not in self.sources:
                raise ValueError(f"player {p.id!r} is on pad {p.pad!r} of unknown source {source!r}")
        if not self.bench <= set(ids) or len(self.bench) >= len(ids):
            raise ValueError("the bench holds some of the players, not all of them")
        if not self.values or any(b <= a for a, b in zip(self.values, self.values[1:], strict=False)):
            raise ValueError("question values must be given in ascending order (004 App.2)")
        if self.themes is not None and self.themes < 1:
            raise ValueError("themes must be at least 1")
        for theme in self.pack:
            if not theme.cards or any(c.value <= 0 for c in theme.cards):
                raise ValueError(f"pack theme {theme.name!r} needs questions of positive value")
        object.__setattr__(self, "pads", pads)

    def theme_values(self, theme: int) -> tuple[int, ...]:
        """The values of theme `theme` (0-based), in the order they are asked."""
        if self.pack:
            return tuple(c.value for c in self.pack[theme].cards)
        return self.values

    def theme_name(self, theme: int) -> str | None:
        """The pack's name of theme `theme` (0-based); None without a pack."""
        return self.pack[theme].name if self.pack else None

    def card(self, theme: int, question: int) -> HostCard | None:
        """The host's card of a question (0-based indices); None without a pack."""
        return self.pack[theme].cards[question] if self.pack else None
