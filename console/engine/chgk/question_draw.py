"""The 12th sector's question draw (000 4.2 г): a rules decision, taken in the engine.

Contract: `Question` is one question of a package with where it comes from (read by
console/games/chgk/questions.py). `QuestionPool` is what the table engine is built with: the loaded
questions, or the reason there are none. `QuestionDeck` hands them out at random without
repeats: a shuffle seeded with the game's seed, fixed at construction, so the same questions
with the same seed give the same sequence of draws, live and in a replay of the journal.
`draw()` returns the next question, or the message to publish when there is none (no file,
an unreadable file, every question played). No I/O: the file is read by the shell.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["NO_QUESTION_FILE", "Question", "QuestionDeck", "QuestionPool"]

NO_QUESTION_FILE = ("no question file for the 12th sector (table.question_file); "
                    "the host reads a question of their own")


@dataclass(frozen=True)
class Question:
    """One question with where it comes from. Optional fields are None when absent."""

    number: str
    text: str
    answer: str
    accepted: str | None = None  # Зачёт: other accepted answers
    rejected: str | None = None  # Незачёт: answers explicitly not accepted
    comment: str | None = None
    sources: str | None = None
    authors: str | None = None
    tournament: str | None = None
    tour: str | None = None
    date: str | None = None
    editor: str | None = None
    handout: str | None = None  # the <раздатка> content, removed from text
    images: tuple[str, ...] = ()  # "(pic: NNN.jpg)" names, removed from text
    # Other fields of the question block by name as written (e.g. "Рейтинг"); not hashed.
    extra: Mapping[str, str] = field(default_factory=dict, hash=False)

    def source_line(self) -> str:
        """Where the question comes from, in Russian, e.g.
        «Кубок», Тур 1, вопрос 3 (07-May-2016); автор: Анна Образцова."""
        parts: list[str] = []
        if self.tournament:
            parts.append(f"«{_one_line(self.tournament).strip('«»')}»")
        if self.tour:
            parts.append(_one_line(self.tour))
        parts.append(f"вопрос {self.number}")
        line = ", ".join(parts)
        line = line[0].upper() + line[1:]
        if self.date:
            line += f" ({_one_line(self.date)})"
        if self.authors:
            line += f"; автор: {_one_line(self.authors)}"
        return line


def _one_line(value: str) -> str:
    return " ".join(value.split())


@dataclass(frozen=True)
class QuestionPool:
    """The questions the table was set up with; `problem` says why the file could not be read."""

    questions: tuple[Question, ...] = ()
    problem: str | None = None


class QuestionDeck:
    """Random questions without repeats for as long as the engine lives (see the module docstring)."""

    def __init__(self, pool: QuestionPool, seed: int) -> None:
        self._pool = pool
        self._order = list(range(len(pool.questions)))
        random.Random(seed).shuffle(self._order)
        self._next = 0

    @property
    def remaining(self) -> int:
        """How many questions are left to draw."""
        return len(self._order) - self._next

    def draw(self) -> Question | tuple[str, ...]:
        """The next question, or the problems to report (the file's, then why there is none)."""
        questions = self._pool.questions
        if not questions:
            return (*([self._pool.problem] if self._pool.problem else []), NO_QUESTION_FILE)
        if self._next >= len(self._order):
            return (f"no questions left: all {len(questions)} questions have been played in this game",)
        question = questions[self._order[self._next]]
        self._next += 1
        return question
