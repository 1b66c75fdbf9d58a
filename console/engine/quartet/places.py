"""The places of a fight with the whole tie-break chain (seed 004 3.10-3.11), as a pure function.

Contract: `rank(tallies, stage, values, shootouts, seed)` orders the teams and says, for every
pair of neighbouring places, what separated them:

* ``total`` - the fight's total (3.9, 3.10);
* ``plus`` - the total without the minuses; ``taken_50``, ``taken_40``, ... - the number of
  questions taken at that value, the highest first (3.10); not in the final (3.11);
* ``shootout`` - a shoot-out theme among the tied teams, for a tie across a place that leads
  further (3.10) and for every tie in the final (3.10-3.11); a shoot-out that ties again is
  followed by another one among those still tied;
* ``lot`` - the lot, for a tie that leads nowhere (3rd/4th before the final; the regulation
  names no other case, so any tie no place depends on is drawn the same way). The draw is
  seeded by the fight's seed and the tied teams' ids, so it is the same whenever it is
  recomputed, and every draw is returned with its seed to be logged.

When a tie needs a shoot-out that has not been played, `Places.pending` lists it (the teams and
the places at stake); the order of those teams is then provisional.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from console.engine.quartet.rules import ADVANCING, Stage


@dataclass(frozen=True, slots=True)
class Tally:
    """A team's fight: its total (3.9), its total without minuses, its questions taken by value."""

    total: int = 0
    plus: int = 0
    taken: Mapping[int, int] = field(default_factory=dict)  # value -> questions taken at it


@dataclass(frozen=True, slots=True)
class Shootout:
    """A shoot-out theme played among `teams` (3.10), with their scores in it."""

    teams: frozenset[str]
    scores: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class Lot:
    """A draw among tied teams (3.10): `order` is the drawn order, best first."""

    teams: tuple[str, ...]
    order: tuple[str, ...]
    seed: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PendingShootout:
    """A tie the places wait on: `teams` share places `first`..`last` (3.10-3.11)."""

    teams: tuple[str, ...]
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class Places:
    order: tuple[str, ...]  # best first
    by: tuple[str, ...]  # by[i]: what put order[i] above order[i + 1]
    lots: tuple[Lot, ...]
    pending: tuple[PendingShootout, ...]

    @property
    def decided(self) -> bool:
        return not self.pending


Key = Callable[[str], int]


def rank(tallies: Mapping[str, Tally], stage: Stage, values: Sequence[int],
         shootouts: Sequence[Shootout], seed: int, advancing: frozenset[int] | None = None) -> Places:
    """The places (see the module docstring); `advancing` overrides the stage's boundaries (the
    tournament's best runner-up: only the first place leads to the final, 2.2.3)."""
    criteria: list[tuple[str, Key]] = [("total", lambda t: tallies[t].total)]
    if stage is not Stage.FINAL:  # 3.11: in the final no indicators, only extra themes
        criteria.append(("plus", lambda t: tallies[t].plus))
        criteria += [(f"taken_{v}", _taken_at(tallies, v)) for v in sorted(values, reverse=True)]
    ranking = _Ranking(stage, criteria, list(shootouts), seed,
                       ADVANCING[stage] if advancing is None else advancing)
    order = ranking.resolve(sorted(tallies), 0, 0)
    by = tuple(ranking.by.get(i, "") for i in range(len(order) - 1))
    return Places(order=tuple(order), by=by, lots=tuple(ranking.lots), pending=tuple(ranking.pending))


def _taken_at(tallies: Mapping[str, Tally], value: int) -> Key:
    return lambda t: tallies[t].taken.get(value, 0)


class _Ranking:
    def __init__(self, stage: Stage, criteria: list[tuple[str, Key]], shootouts: list[Shootout],
                 seed: int, advancing: frozenset[int]) -> None:
        self.stage = stage
        self.advancing = advancing
        self.criteria = criteria
        self.unused = shootouts  # consumed in the order they were played
        self.seed = seed
        self.by: dict[int, str] = {}  # boundary index (0: between places 1 and 2) -> what decided it
        self.lots: list[Lot] = []
        self.pending: list[PendingShootout] = []

    def resolve(self, teams: list[str], start: int, criterion: int) -> list[str]:
        """`teams`, tied on every criterion before `criterion`, at places start+1.. ."""
        if len(teams) == 1:
            return teams
        if criterion < len(self.criteria):
            name, key = self.criteria[criterion]
            return self.split(teams, start, name, key, criterion + 1)
        if self.stage is Stage.FINAL or any(start < k < start + len(teams) for k in self.advancing):
            played = next((s for s in self.unused if s.teams == frozenset(teams)), None)
            if played is None:
                self.pending.append(PendingShootout(teams=tuple(teams), first=start + 1,
                                                    last=start + len(teams)))
                return teams
            self.unused.remove(played)
            # Tied again in the shoot-out: another one among those still tied (3.10-3.11).
            return self.split(teams, start, "shootout", lambda t: played.scores.get(t, 0), len(self.criteria))
        lot_seed = f"{self.seed}:{','.join(sorted(teams))}"
        drawn = sorted(teams)
        random.Random(lot_seed).shuffle(drawn)
        self.lots.append(Lot(teams=tuple(sorted(teams)), order=tuple(drawn), seed=lot_seed))
        for i in range(len(drawn) - 1):
            self.by[start + i] = "lot"
        return drawn

    def split(self, teams: list[str], start: int, name: str, key: Key, next_criterion: int) -> list[str]:
        ordered = sorted(teams, key=lambda t: -key(t))
        groups: list[list[str]] = []
        for t in ordered:
            if groups and key(groups[-1][0]) == key(t):
                groups[-1].append(t)
            else:
                groups.append([t])
        out: list[str] = []
        for group in groups:
            if out:
                self.by[start + len(out) - 1] = name
            out += self.resolve(group, start + len(out), next_criterion)
        return out
