"""What the «Эрудит-квартет» fight keeps of each theme: every team's answers, penalties and
corrections (seed 004 3.5, 3.9, 4.1-4.3), so a voided right answer is simply left out of the sums.

Contract: `ThemeRecord.counted(team)` is the team's answers that count, `score(team)` its
points in the theme (answers, penalties and corrections together).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Answer", "ThemeRecord"]


@dataclass
class Answer:
    question: int
    value: int
    delta: int


@dataclass
class ThemeRecord:
    """What the fight keeps of one theme (see the module docstring)."""

    round: int
    number: int
    name: str
    shootout: bool
    seats: dict[str, str]  # team -> player
    answers: dict[str, list[Answer]] = field(default_factory=dict)
    penalties: dict[str, int] = field(default_factory=dict)  # team -> minus points (3.5)
    adjusted: dict[str, int] = field(default_factory=dict)  # team -> points changed by hand (4.1-4.3)
    voided: set[tuple[str, int]] = field(default_factory=set)  # (team, question) (3.5)

    def counted(self, team: str) -> list[Answer]:
        """The answers that count: all but a right one on a question voided for the team. The
        «незачёт» (3.5) takes away the points earned on the answer; it is a penalty, so it
        never raises a score: a wrong answer's minus stands."""
        return [a for a in self.answers.get(team, [])
                if a.delta <= 0 or (team, a.question) not in self.voided]

    def score(self, team: str) -> int:
        return (sum(a.delta for a in self.counted(team)) + self.penalties.get(team, 0)
                + self.adjusted.get(team, 0))
