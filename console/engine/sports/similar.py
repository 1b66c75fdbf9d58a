"""Answers close to an appealed one (the international association's rules for in-person
tournaments, 1.6.1: when an appeal on an answer is upheld, «всем командам, давшим аналогичный
ответ, их ответ засчитывается»).

Contract: `normalized(text)` is the answer as the comparison sees it: case folded, «ё» read as
«е», punctuation and symbols dropped, spaces collapsed. `similar(answer, others)` gives the
keys of `others` (key -> answer text) whose normalized text is within a few edits of
`answer`'s, with their distance, closest first; an empty answer matches nothing. The jury
chooses among them: nothing here counts an answer by itself (003 5.4.1: any deviation from the
author's answer is the jury's to judge).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Hashable, Mapping
from typing import TypeVar

from rapidfuzz.distance import Levenshtein

__all__ = ["allowed_edits", "normalized", "similar"]

K = TypeVar("K", bound=Hashable)


def normalized(text: str) -> str:
    folded = text.casefold().replace("ё", "е")
    kept = "".join(" " if unicodedata.category(c)[0] in "PSZC" else c for c in folded)
    return " ".join(kept.split())


def allowed_edits(length: int) -> int:
    """Small edits for an answer of `length` letters: a typo in a short word, two or three in a
    phrase (a longer answer differing more is another answer)."""
    if length <= 4:
        return 0 if length <= 2 else 1
    return 1 if length <= 7 else 2 if length <= 15 else 3


def similar(answer: str, others: Mapping[K, str]) -> list[tuple[K, int]]:
    """The keys of `others` whose answers are close to `answer`, with the edits apart."""
    mine = normalized(answer)
    if not mine:
        return []
    found: list[tuple[K, int]] = []
    for key, text in others.items():
        theirs = normalized(text)
        if not theirs:
            continue
        limit = allowed_edits(min(len(mine), len(theirs)))
        distance = Levenshtein.distance(mine, theirs, score_cutoff=limit)
        if distance <= limit:
            found.append((key, distance))
    found.sort(key=lambda kd: kd[1])
    return found
