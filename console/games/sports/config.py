"""The sports stage's config section ``[sports]`` with its ``[[sports.teams]]`` (seed 003 5.2-5.5).

Contract: `SECTIONS` gives console.games the section's parser; the kind reads it with
``config.section(SportsSection)``. A team's `number` is the one on its answer slips (0: the
next after those before it); `rating_id` its id on the rating site (0: none).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from console.config import ConfigError, SectionParser, parse_section

__all__ = ["CHOICES", "SECTIONS", "SportsSection", "SportsTeamSection"]


@dataclass(frozen=True)
class SportsTeamSection:
    """A team of the stage (``[[sports.teams]]``)."""

    name: str
    town: str = ""
    number: int = 0  # on its answer slips; 0: the next free one
    rating_id: int = 0  # the rating site's team id; 0: none


@dataclass(frozen=True)
class SportsSection:
    """The sports «Что? Где? Когда?» stage (game.kind = "sports"; seed 003 5.2-5.5)."""

    SECTION: ClassVar[str] = "sports"
    POSITIVE: ClassVar[frozenset[str]] = frozenset(
        {"count_s", "warning_at_s", "collection_s", "tours", "questions_per_tour", "winners"})

    count_s: float = 60.0  # the discussion after «Время!»
    warning_at_s: float = 50.0  # «Осталось 10 секунд»
    collection_s: float = 10.0  # handing in the answers after the count
    tours: int = 3
    questions_per_tour: int = 12
    winners: int = 5  # the stage's winners (5.5); a tie across the cut is shot out
    hide_last_tour: bool = False  # the hall's standings leave the last tour out until the sheet is closed
    teams: tuple[SportsTeamSection, ...] = ()


def _sports(data: Mapping[str, Any], source: str) -> SportsSection:
    raw = data.get("sports", {})
    if not isinstance(raw, dict):
        raise ConfigError(source, "sports", "must be a table")
    teams_raw = raw.get("teams", [])
    if not isinstance(teams_raw, list):
        raise ConfigError(source, "sports.teams", "must be an array of tables ([[sports.teams]])")
    section = parse_section(SportsSection, {k: v for k, v in raw.items() if k != "teams"}, "sports", source)
    teams = tuple(parse_section(SportsTeamSection, t, f"sports.teams[{i}]", source)
                  for i, t in enumerate(teams_raw, 1))
    return SportsSection(**{f.name: getattr(section, f.name) for f in fields(SportsSection)
                            if f.name != "teams"}, teams=teams)


CHOICES: dict[str, tuple[str, ...]] = {}
SECTIONS: dict[str, SectionParser] = {"sports": _sports}
