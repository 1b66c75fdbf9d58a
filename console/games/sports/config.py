"""The sports timer's config section ``[sports]`` (seed 003 5.2-5.3).

Contract: `SECTIONS` gives console.games the section's parser; the kind reads it with
``config.section(SportsSection)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from console.config import SectionParser, parse_section

__all__ = ["CHOICES", "SECTIONS", "SportsSection"]


@dataclass(frozen=True)
class SportsSection:
    """The sports «Что? Где? Когда?» timer (game.kind = "sports"; seed 003 5.2-5.3)."""

    SECTION: ClassVar[str] = "sports"
    POSITIVE: ClassVar[frozenset[str]] = frozenset(
        {"count_s", "warning_at_s", "collection_s", "tours", "questions_per_tour"})

    count_s: float = 60.0  # the discussion after «Время!»
    warning_at_s: float = 50.0  # «Осталось 10 секунд»
    collection_s: float = 10.0  # handing in the answers after the count
    tours: int = 3
    questions_per_tour: int = 12


CHOICES: dict[str, tuple[str, ...]] = {}
SECTIONS: dict[str, SectionParser] = {
    "sports": lambda data, source: parse_section(SportsSection, data.get("sports", {}), "sports", source),
}
