"""The host's corrections in the button games («Своя игра», «Эрудит-квартет», «Брейн-ринг»):
inputs that change a score or reverse a judgement.

Contract: `AdjustScore` (a player's score changes by `delta`, for `reason`), `Reverse` (the
judgement of the question just played is reversed, for `reason`) and `Undo` (the judgement
just given is taken back at once, mid-question too, for `reason`) are host inputs like
`console.engine.model.Host`, stamped with when the host gave them (`at`). They carry their
arguments, so the journal writes them whole (`command()` is their host command's JSON, which
is also their scenario line) and a replay takes them again. The referee decides whether they
are allowed (seed 004 4.1-4.3: an appeal is heard after the question, before the next; its
decision is final) and answers with `ScoreAdjusted` / `JudgementReversed` or a refusal.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

__all__ = ["MAX_ADJUSTMENT", "UNDO", "AdjustScore", "Correction", "CorrectionAction", "Reverse", "Undo"]

MAX_ADJUSTMENT = 1_000_000  # a score change beyond this is a typo, not a correction


class CorrectionAction(StrEnum):
    """The host command actions of the corrections (beside `HostAction`'s)."""

    ADJUST_SCORE = "adjust_score"
    REVERSE = "reverse"


@dataclass(frozen=True, slots=True)
class AdjustScore:
    """The host changes `player`'s score by `delta` at `at`, and says why."""

    ACTION: ClassVar[CorrectionAction] = CorrectionAction.ADJUST_SCORE

    player: str
    delta: int
    reason: str
    at: int

    def command(self) -> dict[str, str | int]:
        return {"action": self.ACTION.value, "player": self.player, "delta": self.delta,
                "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Reverse:
    """The host reverses the judgement of the question just played at `at`, and says why."""

    ACTION: ClassVar[CorrectionAction] = CorrectionAction.REVERSE

    reason: str
    at: int

    def command(self) -> dict[str, str | int]:
        return {"action": self.ACTION.value, "reason": self.reason}


# «Своя игра» and «Брейн-ринг» take it; the quartet does not (its theme records follow the verdicts).
UNDO = "undo"


@dataclass(frozen=True, slots=True)
class Undo:
    """The host takes back the judgement just given at `at` (a mistaken key), and says why:
    the answerer has the turn again and the host judges anew."""

    ACTION: ClassVar[str] = UNDO

    reason: str
    at: int

    def command(self) -> dict[str, str | int]:
        return {"action": self.ACTION, "reason": self.reason}


Correction = AdjustScore | Reverse | Undo
