"""A question pack as the console plays it: frozen records, whatever file it came from.

Contract: `Pack` → `Round`s → `Theme`s (a name each) → `PackQuestion`s (value, text, the main
answer and every accepted one, wrong answers, comment, media file names, and for SIGame's
special cells what the host must know: `special`, `special_note`, the select's `options`).
Readers (`console.packs.siq`, `console.packs.toml_pack`) build these or raise `PackError`,
whose message names the file and the problem; a cell the sports rules cannot play is left out
and named in `Pack.skipped`. `Pack.played_themes()` is what a «Своя игра» fight plays: the
themes of the ordinary rounds, in the pack's order, with a question each. Nothing here reads
files.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Pack", "PackError", "PackQuestion", "Round", "Theme"]


class PackError(ValueError):
    """A pack that cannot be played: `str()` is "<file>: <problem>"."""

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {problem}")
        self.source, self.problem = source, problem


@dataclass(frozen=True, slots=True)
class PackQuestion:
    value: int
    text: str  # what the host reads; media that is not text appears as "media: <file>"
    answer: str  # the main right answer
    right: tuple[str, ...]  # every accepted answer, `answer` first
    wrong: tuple[str, ...] = ()  # answers not to accept (the pack's hints for the host)
    comment: str = ""
    media: tuple[str, ...] = ()  # file names (inside the pack) or links the question shows
    # A SIGame special cell, played as an ordinary question by the sports rules (004 App.):
    # "cat" (кот в мешке), "auction" (аукцион, ставки), "stake_all" (ставки всех), "no_risk"
    # (вопрос без риска), "for_all" (отвечают все); "" for an ordinary one. The host is told.
    special: str = ""
    special_note: str = ""  # what the pack says of it (the cat's theme and price), in Russian
    options: tuple[str, ...] = ()  # a select question's options, "A: ...", in order


@dataclass(frozen=True, slots=True)
class Theme:
    name: str
    questions: tuple[PackQuestion, ...]


@dataclass(frozen=True, slots=True)
class Round:
    name: str
    themes: tuple[Theme, ...]
    final: bool = False  # SIGame's final round (bets): not played by the club's fight


@dataclass(frozen=True, slots=True)
class Pack:
    name: str
    source: str  # the file it was read from
    rounds: tuple[Round, ...]
    skipped: tuple[str, ...] = ()  # the cells left out, each "<where>: <why>"

    def played_themes(self) -> tuple[Theme, ...]:
        """The themes a fight plays, in order: ordinary rounds' themes that have questions."""
        return tuple(t for r in self.rounds if not r.final for t in r.themes if t.questions)
