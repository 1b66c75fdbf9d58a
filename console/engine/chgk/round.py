"""One round of the «Что? Где? Когда?» table in play: its phase, its parts and its discussion count.

Contract: `RoundInPlay` is the referee's working record of the sector being played (which
part is asked, each part's verdict, help asked for, the running `Count`); it knows how long
one part's discussion lasts (`part_ns`, 000 3.3, 4.2; 003 6.1.2, 6.2.2), how the round and its
count look on the retained snapshot (`view`, `timer_view`) and what the game record keeps of it
once it ends (`record`). `Phase` is where the referee stands between inputs. `NotAllowed` is
how a check refuses a host action or a pick: the referee turns it into a refusal event and
changes nothing. Pure data and arithmetic: nothing here emits events or reads a clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from console.engine.chgk.events import RoundRecord, Score
from console.engine.chgk.rules import TITLES, ChgkRules, EarlyAnswer, SectorKind, Side
from console.engine.model import NS_PER_S, Json
from console.engine.refusals import Reason


class Phase(StrEnum):
    READY = "ready"  # between rounds: waiting for a sector
    ASKED = "asked"  # the question (or part) is asked; the count has not started
    DISCUSSION = "discussion"  # the count runs
    ANSWER = "answer"  # time is up, or an early answer was declared: waiting for the verdict
    GAME_OVER = "game_over"


ONE_MINUTE_KINDS = (SectorKind.QUESTION, SectorKind.SECTOR12, SectorKind.SECTOR13)


class NotAllowed(Exception):
    """A check refused: `reason` for the message and its code, `host_only` when the reason
    gives away the fortochka's place, `details` for the refusal's other ``details``."""

    def __init__(self, reason: Reason, host_only: bool = False, **details: Json) -> None:
        super().__init__(reason.text)
        self.reason, self.host_only, self.details = reason, host_only, details


@dataclass
class Count:
    """The discussion count: when it started, when it ends, when the «10 секунд» warning is due;
    held by the host since `paused_at` (None: it runs); `fired_at`: when the hall last heard
    it (its start or its warning), which a pause keyed before cannot hold it from."""

    started_at: int
    deadline: int
    warn_at: int | None
    paused_at: int | None = None
    fired_at: int = 0
    held_ns: int = 0  # how long the host has held it in all (its length does not count them)

    def arm_warning(self, warning_before_ns: int, after: int) -> None:
        """The «10 секунд» warning, unless the count is too short to have one."""
        warn = self.deadline - warning_before_ns
        self.warn_at = warn if warning_before_ns > 0 and warn > after else None

    def seconds(self) -> float:
        return (self.deadline - self.started_at - self.held_ns) / NS_PER_S


@dataclass
class RoundInPlay:
    number: int
    sector: int
    kind: SectorKind
    played_as: SectorKind  # blitz is played as superblitz in the decisive round (003 6.4.2)
    envelope: int
    parts: int
    value: int
    seated: int  # players at the table when the round began
    at_table: int
    part: int = 1
    results: list[bool] = field(default_factory=list)
    early: list[bool] = field(default_factory=list)
    declared_early: bool = False
    extra_ns: int = 0  # help time asked for before the count starts
    count: Count | None = None
    helps: list[str] = field(default_factory=list)

    def part_ns(self, rules: ChgkRules) -> int:
        """The discussion of one question of the round (000 3.3, 4.2; 003 6.1.2, 6.2.2)."""
        kind = self.played_as
        if kind in (SectorKind.BLITZ, SectorKind.SUPERBLITZ):
            return rules.blitz_part_ns
        if kind is SectorKind.DUPLET:
            return rules.duplet_part_ns
        if kind is SectorKind.SECTOR13:
            return rules.sector13_ns
        if kind is SectorKind.ZEITNOT:
            if self.at_table == 1:
                return rules.discussion_ns
            left = self.seated - self.at_table
            return min(rules.discussion_ns, rules.zeitnot_base_ns + left * rules.zeitnot_step_ns)
        return rules.discussion_ns

    def early_saves_minute(self, rules: ChgkRules) -> bool:
        # 003 6.1.5 saves «the minute»: only a one-minute question has one to save.
        return rules.early_answer is EarlyAnswer.SAVES_MINUTE and self.played_as in ONE_MINUTE_KINDS

    def record(self, winner: Side | None, reason: str, score: Score) -> RoundRecord:
        """What the game record keeps of this round once it ended with `winner` for `reason`."""
        return RoundRecord(
            round=self.number, sector=self.sector, envelope=self.envelope, kind=self.kind,
            played_as=self.played_as, result=winner, reason=reason, value=self.value,
            parts=tuple(self.results), early=tuple(self.early),
            asked=0 if self.kind is SectorKind.FORTOCHKA else self.part, helps=tuple(self.helps),
            score=score,
        )

    def view(self, rules: ChgkRules) -> dict[str, Json]:
        """The round as the snapshot's ``current`` shows it."""
        return {"round": self.number, "sector": self.sector, "kind": self.kind.value,
                "played_as": self.played_as.value, "title": TITLES[self.played_as],
                "envelope": self.envelope, "part": self.part, "parts": self.parts, "value": self.value,
                "early": self.declared_early, "players_at_table": self.at_table,
                "seconds": (self.part_ns(rules) + self.extra_ns) / NS_PER_S,
                "results": list[Json](self.results)}

    def timer_view(self, now: int) -> dict[str, Json] | None:
        """The running count as the snapshot's ``timer`` shows it, or None."""
        c = self.count
        if c is None:
            return None
        left_from = now if c.paused_at is None else c.paused_at  # a held count stands still
        return {"kind": "discussion", "started_at_ns": c.started_at, "deadline_ns": c.deadline,
                "seconds": c.seconds(), "remaining_ms": max(0, (c.deadline - left_from) // 1_000_000),
                "warning_ns": c.warn_at, "paused": c.paused_at is not None, "paused_at_ns": c.paused_at}
