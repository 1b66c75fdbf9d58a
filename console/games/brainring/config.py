"""The «Брейн-ринг» fight's config section: ``[brainring]`` with its ``[[brainring.teams]]``.

Contract: `SECTIONS` gives console.games the section's parser, `CHOICES` the allowed values of
its keys; the kind (kind.py) reads it with ``config.section(BrainringSection)``. ``preset``
names the rules a config starts from (`PRESETS`, ../shared/RULES.md §5 and its sources); each
key the config sets overrides its preset's value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from console.config import ConfigError, SectionParser, parse_section
from console.engine.brainring.rules import Rebound, SendOut

__all__ = ["CHOICES", "PRESETS", "SECTIONS", "BrainringSection", "BrainringTeamSection"]

# The named rules: the keys each sets over the defaults (the sports/club rules, windflower §2).
PRESETS: dict[str, dict[str, object]] = {
    "sports": {},
    "tv": {"count_s": 20.0, "target": 5},  # ky.wikipedia «Брейн-Ринг» 1-5
    "club": {"rebound": "remaining", "rising_stakes": True, "send_out": "fight"},  # tbclub.ru
}


@dataclass(frozen=True)
class BrainringTeamSection:
    """A team at the buttons (``[[brainring.teams]]``): any of its pads is its press."""

    id: str
    name: str
    pads: tuple[str, ...] = ()  # "<source>:<pad>", e.g. ["mcu:0", "mcu:1"]


@dataclass(frozen=True)
class BrainringSection:
    """A game of «Брейн-ринг» fights (game.kind = "brainring"; ../shared/RULES.md §5)."""

    SECTION: ClassVar[str] = "brainring"
    POSITIVE: ClassVar[frozenset[str]] = frozenset({"count_s", "rebound_s", "warning_s", "points"})

    preset: str = "sports"
    count_s: float = 60.0  # after «Время!» (club, windflower; TV: 20)
    rebound_s: float = 20.0  # the other teams' time after a false start or a wrong answer
    rebound: str = "fixed"  # "fixed" (rebound_s) or "remaining" (the time left; club)
    points: int = 1  # a correct answer (windflower 2.3)
    target: int = 3  # first to this many points wins (0: play `questions`; TV: 5)
    questions: int = 0  # the fight's questions (0: to the target); a tie after them: extra questions
    rising_stakes: bool = False  # an unanswered question: the next for 2, then 3 points (club)
    send_out: str = "off"  # a wrong answer in the first second: "off", "fight" or "game" (club, TV 5.2)
    warning_s: float = 5.0  # the three short beeps this long before a count ends
    seed: int = 0  # the draw between presses on one tick (0: a fresh one at start, logged)
    teams: tuple[BrainringTeamSection, ...] = ()


CHOICES = {"brainring.preset": tuple(PRESETS), "brainring.rebound": tuple(r.value for r in Rebound),
           "brainring.send_out": tuple(s.value for s in SendOut)}


def _brainring(data: Mapping[str, Any], source: str) -> BrainringSection:
    """[brainring] over its preset, with its [[brainring.teams]] (kind.py checks the rest)."""
    raw = data.get("brainring", {})
    if not isinstance(raw, dict):
        raise ConfigError(source, "brainring", "must be a table")
    preset = raw.get("preset", "sports")
    if preset not in PRESETS:
        raise ConfigError(source, "brainring.preset", f"{preset!r} is not one of {', '.join(PRESETS)}")
    teams_raw = raw.get("teams", [])
    if not isinstance(teams_raw, list):
        raise ConfigError(source, "brainring.teams", "must be an array of tables ([[brainring.teams]])")
    own = {k: v for k, v in raw.items() if k != "teams"}
    section = parse_section(BrainringSection, {**PRESETS[preset], **own}, "brainring", source, CHOICES)
    teams = tuple(parse_section(BrainringTeamSection, t, f"brainring.teams[{i}]", source)
                  for i, t in enumerate(teams_raw, 1))
    return BrainringSection(**{f.name: getattr(section, f.name) for f in fields(BrainringSection)
                               if f.name != "teams"}, teams=teams)


SECTIONS: dict[str, SectionParser] = {"brainring": _brainring}
