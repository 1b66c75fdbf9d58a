"""The «Эрудит-квартет» fight's config section: ``[quartet]`` with its ``[[quartet.teams]]``.

Contract: `SECTIONS` gives console.games the section's parser, `CHOICES` the allowed values
of its keys; the kind (kind.py) reads it with ``config.section(QuartetSection)`` and checks
what the rules make of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from console.config import ConfigError, SectionParser, parse_section

__all__ = ["CHOICES", "SECTIONS", "QuartetSection", "QuartetTeamSection"]


@dataclass(frozen=True)
class QuartetTeamSection:
    """A team of an «Эрудит-квартет» fight (``[[quartet.teams]]``); its seat, the button its
    player of the theme presses, is the ``[[players]]`` entry with the same id (name and pad)."""

    id: str
    players: tuple[str, ...] = ()  # the roster, by name (004 3.2: any of them may play)


@dataclass(frozen=True)
class QuartetSection:
    """The «Эрудит-квартет» fight (game.kind = "quartet"; seed 004 §III)."""

    SECTION: ClassVar[str] = "quartet"
    POSITIVE: ClassVar[frozenset[str]] = frozenset({"assign_s", "choose_s"})

    rounds: tuple[str, ...] = ("open", "half_dark", "dark")  # the round types in order (3.3, 3.6)
    stage: str = "group"  # group, semifinal, consolation, final: which places lead further (3.10)
    assign_s: float = 60.0  # open and dark rounds: the minute to assign the players (3.6.1, 3.6.3)
    choose_s: float = 20.0  # half-dark round and shoot-out: the time to choose a player (3.6.2)
    seed: int = 0  # the lot for tied places (3.10); 0: a fresh one at start, logged
    teams: tuple[QuartetTeamSection, ...] = ()  # [[quartet.teams]]: 2 to 4 (3.1)


CHOICES = {"quartet.stage": ("group", "semifinal", "consolation", "final")}


def _quartet(data: Mapping[str, Any], source: str) -> QuartetSection:
    """[quartet] with its [[quartet.teams]] (the game checks the rest: kind.py)."""
    raw = data.get("quartet", {})
    if not isinstance(raw, dict):
        raise ConfigError(source, "quartet", "must be a table")
    teams_raw = raw.get("teams", [])
    if not isinstance(teams_raw, list):
        raise ConfigError(source, "quartet.teams", "must be an array of tables ([[quartet.teams]])")
    section = parse_section(QuartetSection, {k: v for k, v in raw.items() if k != "teams"}, "quartet",
                            source, CHOICES)
    teams = tuple(parse_section(QuartetTeamSection, t, f"quartet.teams[{i}]", source)
                  for i, t in enumerate(teams_raw, 1))
    return QuartetSection(**{f.name: getattr(section, f.name) for f in fields(QuartetSection)
                             if f.name != "teams"}, teams=teams)


SECTIONS: dict[str, SectionParser] = {"quartet": _quartet}
