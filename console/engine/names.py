"""A name the host types on the tablet for a player or a team: what makes one acceptable.

Contract: `name_refusal(name, others, word=..., who=...)` says in Russian why `name` (stripped)
cannot be given: it is blank, longer than MAX_NAME, or another's (`others`: the names of the
others); None when it can. `word` is what a name is called («имя», «название»), `who` what
has it («игрок», «команда»).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["MAX_NAME", "name_refusal"]

MAX_NAME = 40  # a longer name does not fit a card on the hall's board


def name_refusal(name: str, others: Iterable[str], *, word: str, who: str) -> str | None:
    name = name.strip()
    if not name:
        return f"нужно {word}"
    if len(name) > MAX_NAME:
        return f"{word} длиннее {MAX_NAME} знаков"
    if name in set(others):
        return f"{who} «{name}» уже есть"
    return None
