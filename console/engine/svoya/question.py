"""One «Своя игра» question in play: the referee's phase and what it keeps about the question.

Contract: `Phase` is where the referee stands between inputs. `Question` is the working
record of one question from its announcement to its end: when signals count from (the
announcement, then each reset: 004 App.4, App.8), the end of the reading, who answered wrongly,
the presses not judged yet, the answerer and their answer clock, and, once ended, when and in
which phase (how a press delivered after the end is judged). It knows its signal window
(`window_end`, App.4, App.8) and how it looks on the snapshot (`reading_state`, `status_of`,
`view`), and, for the host, each player's first press since signals last opened (`presses`).
Once ended, it keeps how (`end_reason`) and its last judgement, which the host may reverse
once (004 4.1-4.3). Pure data: nothing here emits events or reads a clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from console.engine.model import Json, Press, ns_to_ms
from console.engine.svoya.events import EndReason
from console.engine.svoya.rules import Player


class Phase(StrEnum):
    IDLE = "idle"
    READING = "reading"
    OPEN = "open"
    ANSWERING = "answering"
    AWAIT_RESET = "await_reset"
    GAME_OVER = "game_over"


@dataclass
class Question:
    theme: int
    number: int
    value: int
    announced_at: int
    counting_from: int  # signals count from here: the announcement, then each reset (App.4, 8)
    reading_end: int | None = None
    last_wrong_at: int | None = None
    out: set[str] = field(default_factory=set)  # players who answered wrongly (App.8)
    pending: list[Press] = field(default_factory=list)  # presses not judged yet
    answerer: Player | None = None
    answer_press: Press | None = None
    answer_deadline: int | None = None
    answer_started: bool = False
    reading_stopped: bool = False  # a signal stopped the reading (App.6)
    ended_at: int | None = None  # when the question ended (the host's key, or the window's end)
    ended_in: Phase | None = None  # the phase it ended in: how a press delivered after the end is judged
    theme_name: str | None = None  # the pack's name of the theme
    end_reason: EndReason | None = None
    last_judgement: tuple[str, bool] | None = None  # (player, correct) of the last answer judged
    last_wrong: tuple[str, str] | None = None  # (player, by: "host" or "timeout") of the last wrong answer
    reversed: bool = False  # its last judgement was reversed on appeal (final: 004 4.3)
    signals: list[Press] = field(default_factory=list)  # presses of players in play, for the host

    @property
    def window_base(self) -> int | None:
        """The later of the reading's end and the last wrong answer (App.4, App.8)."""
        if self.reading_end is None:
            return None
        return max(self.reading_end, self.last_wrong_at or self.reading_end)

    def window_end(self, signal_window_ns: int) -> int | None:
        """When the signal window closes, once the reading has ended (App.4, App.8)."""
        base = self.window_base
        return None if base is None else base + signal_window_ns

    def in_play(self, players: tuple[Player, ...]) -> tuple[str, ...]:
        """The players who have not answered this question wrongly, in seating order."""
        return tuple(p.id for p in players if p.id not in self.out)

    def reading_state(self) -> str:
        if self.reading_stopped:
            return "stopped"
        return "in_progress" if self.reading_end is None else "finished"

    def status_of(self, p: Player) -> str:
        """The player's status on the snapshot while this question is in play."""
        if self.answerer is not None and self.answerer.id == p.id:
            return "answering"
        if p.id in self.out:
            return "out"
        return "in_play"

    def view(self) -> dict[str, Json]:
        """The question as the snapshot's ``question`` shows it."""
        return {
            "theme": self.theme,
            "theme_name": self.theme_name,
            "number": self.number,
            "value": self.value,
            "reading": self.reading_state(),
            "answerer": self.answerer.id if self.answerer else None,
            "out": [*sorted(self.out)],
            "last_wrong": None if self.last_wrong is None else {"player": self.last_wrong[0],
                                                                "by": self.last_wrong[1]},
        }

    def presses(self, players: Mapping[str, Player]) -> list[Json]:
        """Each player's first press since signals last opened (the announcement or the last
        reset), in press-time order (pad order on a tie), with its delay behind the first."""
        order = {pad: i for i, pad in enumerate(players)}
        firsts: dict[str, int] = {}
        for press in sorted(self.signals, key=lambda p: (p.at, order.get(p.pad, 0))):
            if press.at >= self.counting_from:
                firsts.setdefault(players[press.pad].id, press.at)
        if not firsts:
            return []
        t0 = min(firsts.values())
        return [{"player": player, "delay_ms": ns_to_ms(at - t0)} for player, at in firsts.items()]
