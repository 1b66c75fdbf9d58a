"""The public draw of the teams into groups (seed 004 2.2.2, 2.3.3).

Contract: `draw_groups(teams, seed)` shuffles the teams with a generator seeded by `seed` (and
nothing else: the same seed and the same list give the same groups, so the draw can be shown
again and checked) and deals them into `GROUPS` groups of `GROUP_SIZE`, named A..F. It
refuses a list that is not 24 different teams (2.1).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

GROUPS = 6  # 2.2.2
GROUP_SIZE = 4  # 2.2.2
TEAMS = GROUPS * GROUP_SIZE  # 2.1
GROUP_NAMES = tuple("ABCDEF")


@dataclass(frozen=True, slots=True)
class Draw:
    """The groups, by name, each in the order drawn; `seed` is the draw's, to be logged."""

    groups: dict[str, tuple[str, ...]]
    seed: int


def draw_groups(teams: Sequence[str], seed: int) -> Draw:
    if len(teams) != TEAMS:
        raise ValueError(f"the grid is for {TEAMS} teams (2.1), got {len(teams)}")
    if len(set(teams)) != len(teams):
        raise ValueError("a team is listed twice")
    drawn = list(teams)
    random.Random(seed).shuffle(drawn)
    groups = {name: tuple(drawn[i * GROUP_SIZE:(i + 1) * GROUP_SIZE]) for i, name in enumerate(GROUP_NAMES)}
    return Draw(groups=groups, seed=seed)
