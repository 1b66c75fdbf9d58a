"""«Своя игра»'s keys of the shared ``[game]`` section: the allowed values of its policies.

Contract: `CHOICES` gives console.games the values ``game.answer_clock``, ``game.false_start``
and ``game.tie_policy`` may take (the referee's own enums); «Своя игра» adds no section of its
own (`SECTIONS` is empty): its windows and values are ``[game]``'s, shared with the other
button games that judge a theme with it.
"""

from __future__ import annotations

from console.config import SectionParser
from console.engine.svoya.rules import AnswerClock, FalseStartPolicy, TiePolicy

__all__ = ["CHOICES", "SECTIONS"]

CHOICES = {
    "game.answer_clock": tuple(c.value for c in AnswerClock),
    "game.false_start": tuple(c.value for c in FalseStartPolicy),
    "game.tie_policy": tuple(c.value for c in TiePolicy),
}
SECTIONS: dict[str, SectionParser] = {}
