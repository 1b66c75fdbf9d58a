"""The sports stage's standings (seed 003 5.4-5.5): points, shared places, the winners and the
shoot-out that decides a tie across the winners' cut.

Contract: `standings(points, asked, winners)` orders the teams (number -> points) by
points; teams on equal points share their places, each given the average of the positions
they hold (the rating site's convention: three teams tied for 4th-6th are each 5.0), except
where a shoot-out has ordered them. A tie that straddles the cut (the `winners`-th place,
5 by default, 003 5.5) is played off: `asked` is each shoot-out question asked, in order,
as the teams that played it and those of them that answered right; a question splits the tier
still straddling the cut into those right and those wrong («задаются вопросы, пока одна из
них не получит преимущество»), and a question all of a tier answered alike leaves it whole.
A question decides only between teams that all played it: when the tier straddling the cut
holds a team that did not (a correction after the shoot-out brought it into the tie), the
question decides nothing, and the whole tier plays the next one. The result says
who is still tied across the cut (the next question's teams), or that the winners are known.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass

__all__ = ["Place", "Standings", "standings"]


@dataclass(frozen=True, slots=True)
class Place:
    team: int
    points: int
    first: int  # the first and last positions the team shares (equal when it holds its own)
    last: int

    @property
    def position(self) -> float:
        """The rating site's position: tied teams share the average of their positions."""
        return (self.first + self.last) / 2

    @property
    def shown(self) -> str:
        return str(self.first) if self.first == self.last else f"{self.first}–{self.last}"


@dataclass(frozen=True, slots=True)
class Standings:
    places: tuple[Place, ...]  # best first
    winners: tuple[int, ...]  # the teams known to be among the winners
    shootout: tuple[int, ...]  # the teams tied across the cut: the next shoot-out question's
    cut: int  # how many win (003 5.5)

    @property
    def decided(self) -> bool:
        return not self.shootout


def standings(points: Mapping[int, int], asked: Sequence[tuple[Set[int], Set[int]]],
              winners: int) -> Standings:
    """See the module docstring."""
    by_points: dict[int, list[int]] = {}
    for team, p in points.items():
        by_points.setdefault(p, []).append(team)
    tiers = [sorted(by_points[p]) for p in sorted(by_points, reverse=True)]
    for played, right in asked:
        straddling = _straddling(tiers, winners)
        if straddling and not set(straddling[0]) <= played:
            continue  # a team of the tie did not play this question: it decides nothing between them
        tiers = _split_straddling(tiers, right, winners)
    places: list[Place] = []
    position = 1
    for tier in tiers:
        last = position + len(tier) - 1
        places += [Place(team, points[team], position, last) for team in tier]
        position = last + 1
    straddling = _straddling(tiers, winners)
    shootout = tuple(straddling[0]) if straddling else ()
    won = tuple(p.team for p in places if p.last <= winners)
    return Standings(tuple(places), won, shootout, winners)


def _straddling(tiers: list[list[int]], cut: int) -> list[list[int]]:
    """The tier (at most one) holding positions on both sides of the cut."""
    found: list[list[int]] = []
    position = 1
    for tier in tiers:
        last = position + len(tier) - 1
        if len(tier) > 1 and position <= cut < last:
            found.append(tier)
        position = last + 1
    return found


def _split_straddling(tiers: list[list[int]], right: Set[int], cut: int) -> list[list[int]]:
    straddling = _straddling(tiers, cut)
    out: list[list[int]] = []
    for tier in tiers:
        if straddling and tier is straddling[0]:
            ahead = [t for t in tier if t in right]
            behind = [t for t in tier if t not in right]
            out += [part for part in (ahead, behind) if part]
        else:
            out.append(tier)
    return out
