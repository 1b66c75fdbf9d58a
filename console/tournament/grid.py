"""The 24-team grid of the «Эрудит-квартет» tournament (seed 004 2.2.2-2.3.3).

Contract: a `Tournament` is built from the draw (`draw.Draw`) and a scheme fixed in advance
(2.3.3: which group places meet in which semi-final and consolation fight; `DEFAULT_SCHEME`
puts two group winners and two runners-up of other groups in each semi-final, never two teams
of one group, and the 3rd and 4th places the same way in the consolation fights). `fights()`
lists every fight with its teams once they are known: the six group fights (2.2.2); the three
semi-finals and three consolation fights once every group has played (2.2.2); the final once
every semi-final has played and the best runner-up is decided: the semi-final winners and the
runner-up with the most points over its two fights, the 3.10 indicators summed the same way,
then a shoot-out (`record_runner_up_shootout`) (2.2.3). `record(result)` takes a fight's places
(a `FightResult`, e.g. from the fight's ``fight_over`` event): the same result twice counts
once; a different result for a fight that has one, a fight not yet formed or the wrong teams
are refused with ValueError. `standings()` orders the teams by how far they got and where.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from console.engine.quartet.places import Places, Shootout, Tally, rank
from console.engine.quartet.rules import Stage
from console.tournament.draw import GROUP_NAMES, GROUP_SIZE, Draw

VALUES = (10, 20, 30, 40, 50)

# fight id -> the (group, place) of each of its teams (2.3.3: fixed in advance, public)
DEFAULT_SCHEME: dict[str, tuple[tuple[str, int], ...]] = {
    "semi-1": (("A", 1), ("B", 1), ("E", 2), ("F", 2)),
    "semi-2": (("C", 1), ("D", 1), ("A", 2), ("B", 2)),
    "semi-3": (("E", 1), ("F", 1), ("C", 2), ("D", 2)),
    "consolation-1": (("A", 3), ("B", 3), ("E", 4), ("F", 4)),
    "consolation-2": (("C", 3), ("D", 3), ("A", 4), ("B", 4)),
    "consolation-3": (("E", 3), ("F", 3), ("C", 4), ("D", 4)),
}
FINAL = "final"


@dataclass(frozen=True, slots=True)
class Line:
    """A team's place in a fight and the figures it was decided on (3.9-3.10)."""

    team: str
    place: int
    total: int
    plus: int = 0
    taken: Mapping[int, int] = field(default_factory=dict)  # value -> questions taken at it


@dataclass(frozen=True, slots=True)
class FightResult:
    fight: str
    lines: tuple[Line, ...]

    @staticmethod
    def from_fight_over(fight: str, event: Mapping[str, object]) -> FightResult:
        """From a fight's ``fight_over`` event JSON (docs/mqtt-quartet.md)."""
        places = event.get("places")
        if not isinstance(places, list):
            raise ValueError("a fight_over event has its places")
        lines = []
        for p in places:
            if not isinstance(p, dict):
                raise ValueError("each place is an object")
            taken = p.get("taken", {})
            assert isinstance(taken, dict)
            lines.append(Line(team=str(p["team"]), place=int(p["place"]), total=int(p["total"]),
                              plus=int(p.get("plus", 0)), taken={int(k): int(v) for k, v in taken.items()}))
        return FightResult(fight, tuple(lines))


@dataclass(frozen=True, slots=True)
class Fight:
    id: str
    stage: Stage
    teams: tuple[str, ...] | None  # None until the fights before it have played


@dataclass(frozen=True, slots=True)
class Standing:
    team: str
    group: str
    reached: Stage  # the furthest stage it plays or played in
    place: int | None  # its place in its last fight played
    total: int  # points over every fight it played (3.9)
    fights: tuple[tuple[str, int, int], ...]  # (fight, place, total) in the order played


class Tournament:
    """See the module docstring."""

    def __init__(self, draw: Draw,
                 scheme: Mapping[str, tuple[tuple[str, int], ...]] = DEFAULT_SCHEME) -> None:
        self.draw = draw
        self.scheme = dict(scheme)
        self._results: dict[str, FightResult] = {}
        self._runner_up_shootouts: list[Shootout] = []
        self._group_of = {t: g for g, teams in draw.groups.items() for t in teams}

    # ------------------------------------------------------------------ the fights

    def fights(self) -> list[Fight]:
        out = [Fight(f"group-{g}", Stage.GROUP, self.draw.groups[g]) for g in GROUP_NAMES]
        groups_done = all(f"group-{g}" in self._results for g in GROUP_NAMES)
        for fight, seats in self.scheme.items():
            stage = Stage.SEMIFINAL if fight.startswith("semi") else Stage.CONSOLATION
            teams = tuple(self._place(f"group-{g}", p) for g, p in seats) if groups_done else None
            out.append(Fight(fight, stage, teams))
        out.append(Fight(FINAL, Stage.FINAL, self.finalists()))
        return out

    def fight(self, fight_id: str) -> Fight:
        found = next((f for f in self.fights() if f.id == fight_id), None)
        if found is None:
            raise ValueError(f"no fight {fight_id!r} in the grid")
        return found

    def semifinals(self) -> list[str]:
        return [f for f in self.scheme if f.startswith("semi")]

    def result(self, fight_id: str) -> FightResult | None:
        return self._results.get(fight_id)

    def record(self, result: FightResult) -> bool:
        """Take a fight's result; False when it is the one already recorded (counted once)."""
        fight = self.fight(result.fight)
        if fight.teams is None:
            raise ValueError(f"fight {fight.id!r} is not formed yet: the fights before it have not "
                             "all played")
        known = self._results.get(fight.id)
        if known is not None:
            if known == result:
                return False
            raise ValueError(f"fight {fight.id!r} already has a different result")
        if sorted(line.team for line in result.lines) != sorted(fight.teams):
            raise ValueError(f"fight {fight.id!r} is {', '.join(fight.teams)}; the result names "
                             f"{', '.join(line.team for line in result.lines)}")
        if sorted(line.place for line in result.lines) != list(range(1, len(result.lines) + 1)):
            raise ValueError(f"fight {fight.id!r}: the places must be 1..{len(result.lines)}, each once")
        self._results[fight.id] = result
        return True

    def replace(self, result: FightResult) -> None:
        """A fight's result changed after it was recorded (004 4.3: an appeal upheld after the
        fight), taken in place of the old one unless a fight played since was formed from the old
        one (its teams would no longer be the ones that played it): ValueError naming it."""
        if self._results.get(result.fight) is None:
            raise ValueError(f"fight {result.fight!r} has no result to replace")
        old = self._results[result.fight]
        before = {f.id: f.teams for f in self.fights()}
        del self._results[result.fight]
        try:
            self.record(result)
        except ValueError:
            self._results[result.fight] = old
            raise
        moved = [f.id for f in self.fights() if f.id != result.fight and f.id in self._results
                 and f.teams != before[f.id]]
        if moved:
            self._results[result.fight] = old
            raise ValueError(f"fight {', '.join(moved)} was played with the teams the old result of "
                             f"{result.fight!r} put there")

    def _place(self, fight_id: str, place: int) -> str:
        result = self._results[fight_id]
        return next(line.team for line in result.lines if line.place == place)

    # ------------------------------------------------------------------ the best runner-up (2.2.3)

    def runner_up(self) -> Places | None:
        """The semi-finals' runners-up ranked over their two fights (2.2.3, 3.10); None until
        every semi-final has played. `pending` names a shoot-out the choice waits on."""
        semis = self.semifinals()
        if not all(s in self._results for s in semis):
            return None
        tallies = {}
        for s in semis:
            team = self._place(s, 2)
            tallies[team] = self._summed(team, (f"group-{self._group_of[team]}", s))
        return rank(tallies, Stage.SEMIFINAL, VALUES, self._runner_up_shootouts, self.draw.seed,
                    advancing=frozenset({1}))

    def record_runner_up_shootout(self, scores: Mapping[str, int]) -> None:
        """The shoot-out theme among the runners-up tied for the final (3.10)."""
        places = self.runner_up()
        if places is None or not places.pending or frozenset(scores) != frozenset(places.pending[0].teams):
            raise ValueError("no shoot-out among these runners-up is due")
        self._runner_up_shootouts.append(Shootout(frozenset(scores), dict(scores)))

    def runner_up_shootouts(self) -> list[Mapping[str, int]]:
        """The scores of each shoot-out among the runners-up, in the order played."""
        return [dict(s.scores) for s in self._runner_up_shootouts]

    def finalists(self) -> tuple[str, ...] | None:
        """The semi-final winners and the best runner-up (2.2.3); None until decided."""
        places = self.runner_up()
        if places is None or places.pending:
            return None
        return (*(self._place(s, 1) for s in self.semifinals()), places.order[0])

    def _summed(self, team: str, fights: Sequence[str]) -> Tally:
        lines = [line for f in fights for line in self._results[f].lines if line.team == team]
        taken: dict[int, int] = {}
        for line in lines:
            for v, n in line.taken.items():
                taken[v] = taken.get(v, 0) + n
        return Tally(total=sum(line.total for line in lines), plus=sum(line.plus for line in lines),
                     taken=taken)

    # ------------------------------------------------------------------ standings

    def standings(self) -> list[Standing]:
        """Every team: the final's places first, then by the stage reached, the place in its last
        fight and its points (the regulation places only the final; the rest is an order to show)."""
        rows: list[Standing] = []
        order = {Stage.FINAL: 0, Stage.SEMIFINAL: 1, Stage.CONSOLATION: 2, Stage.GROUP: 3}
        for team, group in self._group_of.items():
            played: list[tuple[str, int, int]] = []
            reached = Stage.GROUP
            for fight in self.fights():
                if fight.teams is None or team not in fight.teams:
                    continue
                reached = fight.stage
                result = self._results.get(fight.id)
                if result is not None:
                    line = next(x for x in result.lines if x.team == team)
                    played.append((fight.id, line.place, line.total))
            rows.append(Standing(team=team, group=group, reached=reached,
                                 place=played[-1][1] if played else None,
                                 total=sum(p[2] for p in played), fights=tuple(played)))
        return sorted(rows, key=lambda r: (order[r.reached], r.place or GROUP_SIZE + 1, -r.total, r.team))
