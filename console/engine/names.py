"""A name the host types on the tablet for a player or a team: what makes one acceptable.

Contract: `name_refusal(name, others, word=..., who=...)` says in Russian why `name` (stripped)
cannot be given: it is blank, holds control characters (NUL, escape sequences) or text-direction
controls, is made only of invisible characters (a zero-width space), is longer than MAX_NAME,
or is another's (`others`: the names of the
others); None when it can. `word` is what a name is called («имя», «название»), `who` what
has it («игрок», «команда»).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from console.engine.refusals import Reason, Why, why

__all__ = ["BIDI_CONTROLS", "MAX_NAME", "name_refusal", "unusable_text"]

MAX_NAME = 40  # a longer name does not fit a card on the hall's board
# Embeddings, overrides and isolates: a name with them reorders the text around it on a board.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")


def name_refusal(name: str, others: Iterable[str], *, word: str, who: str) -> Reason | None:
    name = name.strip()
    if not name:
        return why(Why.NAME_MISSING, word=word)
    problem = unusable_text(name, word)
    if problem is not None:
        return problem
    if len(name) > MAX_NAME:
        return why(Why.NAME_TOO_LONG, word=word, most=MAX_NAME)
    if name in set(others):
        return why(Why.NAME_TAKEN, who=who, name=name)
    return None


def unusable_text(text: str, word: str) -> Reason | None:
    """Why `text` (a name, a town, an answer) cannot be shown on a screen as typed: control
    characters (NUL, escape sequences), text-direction controls, or nothing visible; None when
    it can. `word` is what it is called, in Russian."""
    if any(unicodedata.category(c) == "Cc" for c in text):
        return why(Why.TEXT_CONTROL_CHARACTERS, word=word)
    if any(c in BIDI_CONTROLS for c in text):
        return why(Why.TEXT_DIRECTION_CHARACTERS, word=word)
    if text and all(unicodedata.category(c) in ("Cf", "Zs", "Mn", "Me") for c in text):
        return why(Why.TEXT_INVISIBLE, word=word)
    return None
