"""The sports stage's results sheet (seed 003 5.2-5.5): what the game jury decided of each
team's answer to each question, kept as exactly as a fight's score.

Theory of operation. The sheet has a row per team (its number on the answer slips, name,
town, rating-site id) and a column per question: the 3 tours of 12 (5.2), then the shoot-out's
questions numbered on (5.5). A cell is right (1 point), wrong (0: also every cell nobody
entered) or disputed (5.4.2), and may hold the answer's text as the slip gave it. A disputed
cell keeps the verdict it had («включая засчитанный»: a team may dispute an accepted answer
too; the association's rules 1.5), counted so in the preliminary standings until the jury
decides it, which it does between tours (5.4.2): while a tour is being played, every
dispute waits. An appeal on an answer lists every answer to that question close to it
(console/engine/sports/similar.py) and counts the ones the jury chooses for every team that gave
them (1.6.1); a question removed on appeal counts for nobody (1.6.2-1.6.4, shown ``X``). Every
change is a `SheetEdit` with who made it and why; each taken one is announced as a
`SheetChanged` and kept in the sheet's log, each refused one as a `CommandRefused` naming
what was wrong (an unknown team, a question out of range, a verdict after the sheet is closed),
changing nothing.

Pure like the engines: `handle(edit, now, tour_in_play)` and read-only views; no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import ClassVar

from console.engine.events import CommandRefused, Event, refusal
from console.engine.model import Json, Output
from console.engine.names import MAX_NAME, unusable_text
from console.engine.refusals import Reason, Why, why
from console.engine.sports.similar import similar
from console.engine.sports.standings import Standings, standings

__all__ = ["MAX_ANSWER", "MAX_SHOOTOUT", "MAX_TEAMS", "Sheet", "SheetAction", "SheetChanged", "SheetEdit",
           "SheetRules", "TeamEntry", "Verdict"]

MAX_ANSWER = 120  # an answer slip's text, as the jury types it (a question's part stays < 64 KiB)
MAX_WHY = 300
MAX_TEAMS = 120  # a hall; the standings of this many stay one message under the broker's limit
MAX_SHOOTOUT = 30  # shoot-out questions after the stage's own


class Verdict(StrEnum):
    RIGHT = "1"
    WRONG = "0"
    DISPUTED = "?"


class SheetAction(StrEnum):
    ADD_TEAM = "add_team"  # name, town, rating_id, team (its number; the next free if omitted)
    EDIT_TEAM = "edit_team"  # team; name, town, rating_id
    SET_QUESTION = "set_question"  # question, teams: exactly these answered right
    SET_TEAM = "set_team"  # team, tour, mask: a tour's verdicts of one team ("1", "0", "?")
    SET_CELL = "set_cell"  # team, question, verdict (and answer)
    SET_ANSWER = "set_answer"  # team, question, answer: the slip's text
    DECIDE = "decide"  # team, question, verdict (1 or 0), why: a dispute decided (5.4.2)
    OPEN_APPEAL = "open_appeal"  # team, question: the answers close to its one are listed
    UPHOLD_APPEAL = "uphold_appeal"  # teams (of the listed), why: each of them counted right
    REJECT_APPEAL = "reject_appeal"  # why
    REMOVE_QUESTION = "remove_question"  # question, why: counted for nobody
    RESTORE_QUESTION = "restore_question"  # question, why
    CLOSE = "close_sheet"  # the stage's results are final: no more verdicts
    REOPEN = "reopen_sheet"  # why


TITLES: dict[str, str] = {
    "add_team": "Добавить команду", "edit_team": "Изменить команду",
    "set_question": "Верные ответы на вопрос",
    "set_team": "Ответы команды за тур", "set_cell": "Ответ команды", "set_answer": "Текст ответа",
    "decide": "Решение по спорному", "open_appeal": "Апелляция", "uphold_appeal": "Апелляция принята",
    "reject_appeal": "Апелляция отклонена", "remove_question": "Снять вопрос",
    "restore_question": "Вернуть вопрос", "close_sheet": "Закрыть протокол",
    "reopen_sheet": "Открыть протокол",
}


_UNSET_WHEN_EMPTY = frozenset({"by", "mask", "why", "when"})  # the fields whose default is ""


@dataclass(frozen=True, slots=True)
class SheetEdit:
    """One change the jury (or the organiser's tablet, for the teams) asks of the sheet."""

    action: SheetAction
    at: int
    by: str = ""  # who: the account ("jury", "host") and the name the page gives
    team: int | None = None
    question: int | None = None
    teams: tuple[int, ...] = ()
    tour: int | None = None
    mask: str = ""
    verdict: Verdict | None = None
    answer: str | None = None
    name: str | None = None
    town: str | None = None
    rating_id: int | None = None
    why: str = ""
    when: str = ""  # the console's wall clock when it took the command ("": not stamped)

    def line(self) -> dict[str, Json]:
        """The edit as a journal line's keys (besides its time): only what it carries."""
        out: dict[str, Json] = {"sheet": self.action.value}
        for key in ("by", "team", "question", "tour", "mask", "verdict", "answer", "name", "town",
                    "rating_id", "why", "when"):
            value = getattr(self, key)
            # None is "not given"; "" is written where it differs from that (an answer, a name or
            # a town cleared), so that a replay reads back what the sheet took.
            if value is None or (value == "" and key in _UNSET_WHEN_EMPTY):
                continue
            out[key] = value.value if isinstance(value, Verdict) else value
        if self.teams:
            out["teams"] = list(self.teams)
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetChanged(Event):
    """A change the sheet took: `action`, who made it and why, `text` saying it in Russian. Its
    text names verdicts and answers: the host's (host/events), never the hall's (the jury reads
    the sheet's log part)."""

    TYPE: ClassVar[str] = "sheet_changed"
    AUDIENCE: ClassVar[str | None] = "host"

    action: str
    by: str
    why: str
    text: str
    revision: int


@dataclass(frozen=True, slots=True)
class SheetRules:
    tours: int = 3  # 003 5.2
    questions_per_tour: int = 12
    winners: int = 5  # 003 5.5
    hide_last_tour: bool = False  # the hall's standings leave the last tour out until the end

    @property
    def questions(self) -> int:
        return self.tours * self.questions_per_tour


@dataclass(frozen=True, slots=True)
class TeamEntry:
    number: int
    name: str
    town: str = ""
    rating_id: int | None = None


@dataclass(frozen=True, slots=True)
class Cell:
    verdict: Verdict = Verdict.WRONG
    answer: str = ""
    was: Verdict = Verdict.WRONG  # a disputed cell's verdict before the dispute (counted meanwhile)

    @property
    def counted(self) -> bool:
        return (self.was if self.verdict is Verdict.DISPUTED else self.verdict) is Verdict.RIGHT


@dataclass(frozen=True, slots=True)
class Appeal:
    team: int
    question: int
    answer: str
    candidates: tuple[tuple[int, str, int], ...]  # (team, its answer, edits apart), closest first


@dataclass(frozen=True, slots=True)
class LogEntry:
    at: int
    by: str
    action: str
    text: str
    why: str
    when: str = ""

    def view(self) -> dict[str, Json]:
        return {"at_ns": self.at, "when": self.when, "by": self.by, "action": self.action, "text": self.text,
                "why": self.why}


class Refused(Exception):
    """An edit not taken, for `reason` (its words are Russian, for the jury)."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason.text)
        self.reason = reason


@dataclass
class Sheet:
    """See the module docstring."""

    rules: SheetRules = field(default_factory=SheetRules)
    teams: dict[int, TeamEntry] = field(default_factory=dict)
    cells: dict[tuple[int, int], Cell] = field(default_factory=dict)  # (team, question)
    removed: dict[int, str] = field(default_factory=dict)  # question -> why
    appeal: Appeal | None = None
    closed: bool = False
    log: list[LogEntry] = field(default_factory=list)
    revision: int = 0
    shootout_asked: int = 0  # shoot-out questions with an entry (numbered after the stage's)
    # Every team had the stage's last question entered (or it was removed) once: the stage's
    # entries are done, and stay so when a latecomer is added after (`SportsStage.stage_over`).
    finished: bool = False

    @classmethod
    def with_teams(cls, rules: SheetRules, teams: Iterable[TeamEntry]) -> Sheet:
        return cls(rules, {t.number: t for t in teams})

    # ------------------------------------------------------------------ edits

    def handle(self, edit: SheetEdit, now: int, tour_in_play: int | None) -> list[Output]:
        """Take `edit` at `now`; `tour_in_play` is the tour whose questions are being asked
        (None between tours: 5.4.2's time for disputes)."""
        try:
            text = self._apply(edit, tour_in_play)
        except Refused as exc:
            return [self._refused(now, edit.action.value, exc.reason)]
        self.revision += 1
        last = self.rules.questions
        self.finished = self.finished or (bool(self.teams) and (
            last in self.removed or all((t, last) in self.cells for t in self.teams)))
        self.log.append(LogEntry(edit.at, edit.by, edit.action.value, text, edit.why, edit.when[:19]))
        return [SheetChanged(t_ns=now, action=edit.action.value, by=edit.by, why=edit.why, text=text,
                             revision=self.revision)]

    def _apply(self, e: SheetEdit, tour_in_play: int | None) -> str:
        a = e.action
        if a is SheetAction.ADD_TEAM:
            return self._add_team(e)
        if a is SheetAction.EDIT_TEAM:
            return self._edit_team(e)
        if a is SheetAction.REOPEN:
            if not self.closed:
                raise Refused(why(Why.SHEET_NOT_CLOSED))
            _need_why(e)
            self.closed = False
            return "протокол открыт снова"
        if self.closed:
            raise Refused(why(Why.SHEET_CLOSED))
        if a is SheetAction.SET_QUESTION:
            return self._set_question(e)
        if a is SheetAction.SET_TEAM:
            return self._set_team(e)
        if a is SheetAction.SET_CELL:
            return self._set_cell(e)
        if a is SheetAction.SET_ANSWER:
            team, q = self._team(e.team), self._question(e.question)
            cell = self.cells.get((team, q), Cell())
            self.cells[(team, q)] = replace(cell, answer=_answer(e.answer))
            return f"команда {team}, вопрос {q}: ответ «{self.cells[(team, q)].answer}»"
        if a is SheetAction.DECIDE:
            return self._decide(e, tour_in_play)
        if a is SheetAction.OPEN_APPEAL:
            return self._open_appeal(e)
        if a is SheetAction.UPHOLD_APPEAL:
            return self._uphold(e, tour_in_play)
        if a is SheetAction.REJECT_APPEAL:
            appeal = self._open()
            _need_why(e)
            self.appeal = None
            return f"апелляция команды {appeal.team} на ответ к вопросу {appeal.question} отклонена"
        if a is SheetAction.REMOVE_QUESTION:
            q = self._question(e.question, shootout=False)
            if q in self.removed:
                raise Refused(why(Why.QUESTION_ALREADY_DROPPED, question=q))
            self.removed[q] = _need_why(e)
            return f"вопрос {q} снят: не засчитывается никому"
        if a is SheetAction.RESTORE_QUESTION:
            q = self._question(e.question, shootout=False)
            if q not in self.removed:
                raise Refused(why(Why.QUESTION_NOT_DROPPED, question=q))
            _need_why(e)
            del self.removed[q]
            return f"вопрос {q} возвращён"
        if a is SheetAction.CLOSE:
            if self.disputed():
                raise Refused(why(Why.DISPUTES_UNDECIDED, count=len(self.disputed())))
            if self.appeal is not None:
                raise Refused(why(Why.APPEAL_UNDECIDED))
            tied = self.standings().shootout
            if tied:  # the winners are not known: «результаты окончательные» would say they are
                raise Refused(why(Why.SHOOTOUT_UNPLAYED, teams=_numbers(tied)))
            self.closed = True
            return "протокол закрыт"
        raise Refused(why(Why.UNKNOWN_SHEET_ACTION, action=a.value))  # pragma: no cover - the enum is whole

    def _add_team(self, e: SheetEdit) -> str:
        if len(self.teams) >= MAX_TEAMS:
            raise Refused(why(Why.MAX_TEAMS, most=MAX_TEAMS))
        number = e.team if e.team is not None else max(self.teams, default=0) + 1
        if not 0 < number < 10_000:
            raise Refused(why(Why.TEAM_NUMBER_RANGE, number=number))
        if number in self.teams:
            raise Refused(why(Why.TEAM_NUMBER_TAKEN, number=number, name=self.teams[number].name))
        name = _name(e.name, [t.name for t in self.teams.values()])
        self.teams[number] = TeamEntry(number, name, _town(e.town), e.rating_id)
        return f"команда {number} «{name}» добавлена"

    def _edit_team(self, e: SheetEdit) -> str:
        team = self.teams[self._team(e.team)]
        name = team.name if e.name is None else _name(
            e.name, [t.name for t in self.teams.values() if t.number != team.number])
        town = team.town if e.town is None else _town(e.town)
        rating_id = team.rating_id if e.rating_id is None else e.rating_id
        self.teams[team.number] = TeamEntry(team.number, name, town, rating_id or None)
        return f"команда {team.number}: «{name}», {town or 'город не указан'}"

    def _set_question(self, e: SheetEdit) -> str:
        q = self._question(e.question)
        right = {self._team(t) for t in e.teams}
        answering: Iterable[int] = self.teams
        if q > self.rules.questions:
            playing = set(self.shootout_teams(q))
            stray = sorted(right - playing)
            if stray:
                raise Refused(why(Why.SHOOTOUT_TEAMS, question=q, playing=_numbers(playing),
                                  stray=_numbers(stray)))
            answering = sorted(playing)  # a team not in the shoot-out has no verdict on it
        for team in answering:
            cell = self.cells.get((team, q), Cell())
            if cell.verdict is Verdict.DISPUTED:
                continue  # a dispute stands until the jury decides it, with its reason (5.4.2)
            verdict = Verdict.RIGHT if team in right else Verdict.WRONG
            self.cells[(team, q)] = replace(cell, verdict=verdict, was=verdict)
        if q > self.rules.questions:
            self.shootout_asked = max(self.shootout_asked, q - self.rules.questions)
        return f"вопрос {q}: верно — {_numbers(right) or 'никто'}"

    def _set_team(self, e: SheetEdit) -> str:
        team = self._team(e.team)
        per = self.rules.questions_per_tour
        if e.tour is None or not 1 <= e.tour <= self.rules.tours:
            raise Refused(why(Why.TOUR_RANGE, tour=str(e.tour), tours=self.rules.tours))
        mask = e.mask.replace(" ", "")
        if len(mask) != per or set(mask) - {"0", "1", "?"}:
            raise Refused(why(Why.TOUR_MASK, per=per, mask=e.mask[:40]))
        first = (e.tour - 1) * per + 1
        for i, mark in enumerate(mask):
            if mark != "?" and self.cells.get((team, first + i), Cell()).verdict is Verdict.DISPUTED:
                raise Refused(why(Why.MASK_DISPUTED, question=first + i))
        for i, mark in enumerate(mask):
            cell = self.cells.get((team, first + i), Cell())
            self.cells[(team, first + i)] = _with_verdict(cell, Verdict(mark))
        return f"команда {team}, тур {e.tour}: {mask}"

    def _set_cell(self, e: SheetEdit) -> str:
        team, q = self._team(e.team), self._question(e.question)
        if e.verdict is None:
            raise Refused(why(Why.CELL_VALUE_MISSING))
        if q > self.rules.questions and team not in self.shootout_teams(q):
            raise Refused(why(Why.NOT_IN_QUESTION_SHOOTOUT, team=team, question=q))
        cell = self.cells.get((team, q), Cell())
        if cell.verdict is Verdict.DISPUTED and e.verdict is not Verdict.DISPUTED:
            raise Refused(why(Why.CELL_DISPUTED))
        if e.answer is not None:
            cell = replace(cell, answer=_answer(e.answer))
        self.cells[(team, q)] = _with_verdict(cell, e.verdict)
        if q > self.rules.questions:
            self.shootout_asked = max(self.shootout_asked, q - self.rules.questions)
        shown = {"1": "верно", "0": "неверно", "?": "спорный"}[e.verdict.value]
        return f"команда {team}, вопрос {q}: {shown}" + (f" («{cell.answer}»)" if cell.answer else "")

    def _decide(self, e: SheetEdit, tour_in_play: int | None) -> str:
        team, q = self._team(e.team), self._question(e.question)
        cell = self.cells.get((team, q), Cell())
        if cell.verdict is not Verdict.DISPUTED:
            raise Refused(why(Why.NOT_DISPUTED, team=team, question=q))
        if e.verdict not in (Verdict.RIGHT, Verdict.WRONG):
            raise Refused(why(Why.DECISION_VALUE))
        if tour_in_play is not None:
            raise Refused(why(Why.DISPUTES_BETWEEN_TOURS, tour=tour_in_play))
        _need_why(e)
        self.cells[(team, q)] = replace(cell, verdict=e.verdict, was=e.verdict)
        decided = "засчитан" if e.verdict is Verdict.RIGHT else "не засчитан"
        return f"спорный ответ команды {team} на вопрос {q} {decided}"

    def _open_appeal(self, e: SheetEdit) -> str:
        if self.appeal is not None:
            raise Refused(why(Why.APPEAL_OPEN_ALREADY, team=self.appeal.team, question=self.appeal.question))
        team, q = self._team(e.team), self._question(e.question, shootout=False)
        cell = self.cells.get((team, q), Cell())
        if cell.verdict is Verdict.RIGHT:
            raise Refused(why(Why.APPEAL_ANSWER_COUNTED, team=team, question=q))
        answer = cell.answer if e.answer is None else _answer(e.answer)
        if not answer:
            raise Refused(why(Why.APPEAL_NO_ANSWER_TEXT, team=team, question=q))
        if answer != cell.answer:
            self.cells[(team, q)] = replace(cell, answer=answer)
        others = {t: c.answer for (t, qq), c in self.cells.items()
                  if qq == q and t != team and c.answer and c.verdict is not Verdict.RIGHT}
        found = tuple((t, others[t], d) for t, d in similar(answer, others))
        self.appeal = Appeal(team, q, answer, found)
        return f"апелляция команды {team} на ответ «{answer}» к вопросу {q}: похожих ответов {len(found)}"

    def _uphold(self, e: SheetEdit, tour_in_play: int | None) -> str:
        appeal = self._open()
        listed = {appeal.team} | {t for t, _, _ in appeal.candidates}
        chosen = {appeal.team, *e.teams}
        stray = sorted(chosen - listed)
        if stray:
            raise Refused(why(Why.APPEAL_NOT_SIMILAR, teams=_numbers(stray)))
        verdicts = {self.cells.get((t, appeal.question), Cell()).verdict for t in chosen}
        disputed = Verdict.DISPUTED in verdicts
        if disputed and tour_in_play is not None:
            # Counting a disputed answer right decides the dispute, and 5.4.2 decides disputes
            # between tours only, whatever the way in.
            raise Refused(why(Why.DISPUTES_BETWEEN_TOURS, tour=tour_in_play))
        _need_why(e)
        for team in chosen:
            cell = self.cells.get((team, appeal.question), Cell())
            self.cells[(team, appeal.question)] = replace(cell, verdict=Verdict.RIGHT, was=Verdict.RIGHT)
        self.appeal = None
        return (f"апелляция на ответ «{appeal.answer}» к вопросу {appeal.question} принята: засчитано "
                f"командам {_numbers(chosen)}")

    # ------------------------------------------------------------------ views

    def tour_of(self, question: int) -> int | None:
        if question > self.rules.questions:
            return None
        return (question - 1) // self.rules.questions_per_tour + 1

    def mark(self, team: int, question: int) -> str:
        """The rating site's mask character: 1, 0, ? (disputed) or X (removed)."""
        if question in self.removed:
            return "X"
        return self.cells.get((team, question), Cell()).verdict.value

    def mask(self, team: int, questions: int | None = None) -> str:
        return "".join(self.mark(team, q) for q in range(1, (questions or self.rules.questions) + 1))

    def all_points(self, tours: int | None = None) -> dict[int, int]:
        """Each team's points over the first `tours` tours (all by default), in one pass."""
        last = (tours if tours is not None else self.rules.tours) * self.rules.questions_per_tour
        out = dict.fromkeys(self.teams, 0)
        for (t, q), c in self.cells.items():
            if q <= last and q not in self.removed and c.counted:
                out[t] += 1
        return out

    def points(self, team: int, tours: int | None = None) -> int:
        return self.all_points(tours)[team]

    def all_tour_points(self) -> dict[int, list[int]]:
        per = self.rules.questions_per_tour
        out = {t: [0] * self.rules.tours for t in self.teams}
        for (t, q), c in self.cells.items():
            if q <= self.rules.questions and q not in self.removed and c.counted:
                out[t][(q - 1) // per] += 1
        return out

    def disputed(self) -> list[tuple[int, int]]:
        """(team, question) of each dispute the jury has not decided, by question."""
        return sorted(((t, q) for (t, q), c in self.cells.items() if c.verdict is Verdict.DISPUTED),
                      key=lambda tq: (tq[1], tq[0]))

    def shootout_answers(self, upto: int | None = None) -> list[set[int]]:
        """Each shoot-out question's teams that answered right, in order."""
        return [right for _, right in self.shootout_played(upto)]

    def shootout_played(self, upto: int | None = None) -> list[tuple[set[int], set[int]]]:
        """Each shoot-out question, in order: the teams that played it (those with a verdict on
        it) and those of them that answered right."""
        last = self.shootout_asked if upto is None else upto
        base = self.rules.questions
        asked: list[tuple[set[int], set[int]]] = [(set(), set()) for _ in range(last)]
        for (t, q), c in self.cells.items():
            if base < q <= base + last and c.verdict in (Verdict.RIGHT, Verdict.WRONG):
                played, right = asked[q - base - 1]
                played.add(t)
                if c.verdict is Verdict.RIGHT:
                    right.add(t)
        return asked

    def standings(self, tours: int | None = None) -> Standings:
        points = self.all_points(tours)
        if tours is not None and tours < self.rules.tours:
            return standings(points, [], self.rules.winners)
        return standings(points, self.shootout_played(), self.rules.winners)

    def shootout_teams(self, question: int) -> tuple[int, ...]:
        """The teams that play shoot-out question `question` (those tied across the cut after
        the ones before it)."""
        points = self.all_points()
        before = self.shootout_played(question - self.rules.questions - 1)
        return standings(points, before, self.rules.winners).shootout

    @property
    def preliminary(self) -> bool:
        return bool(self.disputed()) or self.appeal is not None

    # ------------------------------------------------------------------ internals

    def _team(self, number: int | None) -> int:
        if number is None:
            raise Refused(why(Why.TEAM_NUMBER_MISSING))
        if number not in self.teams:
            raise Refused(why(Why.NO_TEAM_NUMBER, number=number))
        return number

    def _question(self, number: int | None, *, shootout: bool = True) -> int:
        last = self.rules.questions + (MAX_SHOOTOUT if shootout else 0)
        if number is None or not 1 <= number <= last:
            raise Refused(why(Why.QUESTION_NUMBER_RANGE, question=number, last=last) if number is not None
                          else why(Why.QUESTION_NUMBER_MISSING))
        return number

    def _open(self) -> Appeal:
        if self.appeal is None:
            raise Refused(why(Why.APPEAL_NOT_OPEN))
        return self.appeal

    def _refused(self, now: int, action: str, reason: Reason) -> CommandRefused:
        return refusal(now, action, reason, "closed" if self.closed else "open", TITLES)


def _with_verdict(cell: Cell, verdict: Verdict) -> Cell:
    if verdict is Verdict.DISPUTED:
        was = cell.was if cell.verdict is Verdict.DISPUTED else cell.verdict
        return replace(cell, verdict=verdict, was=was)
    return replace(cell, verdict=verdict, was=verdict)


def _need_why(e: SheetEdit) -> str:
    reason = e.why.strip()
    if not reason:
        raise Refused(why(Why.SHEET_WHY_MISSING))
    if len(reason) > MAX_WHY:
        raise Refused(why(Why.SHEET_WHY_TOO_LONG, most=MAX_WHY))
    return reason


def _name(name: str | None, others: list[str]) -> str:
    text = (name or "").strip()
    if not text:
        raise Refused(why(Why.TEAM_NAME_MISSING))
    if (problem := unusable_text(text, "название")) is not None:
        raise Refused(problem)
    if len(text) > MAX_NAME * 2:
        raise Refused(why(Why.TEAM_NAME_TOO_LONG, most=MAX_NAME * 2))
    if text in others:
        raise Refused(why(Why.TEAM_NAME_TAKEN, name=text))
    return text


def _town(town: str | None) -> str:
    text = (town or "").strip()
    if (problem := unusable_text(text, "город")) is not None:
        raise Refused(problem)
    if len(text) > MAX_NAME:
        raise Refused(why(Why.TOWN_TOO_LONG, most=MAX_NAME))
    return text


def _answer(answer: str | None) -> str:
    text = " ".join((answer or "").split())
    if (problem := unusable_text(text, "ответ")) is not None:
        raise Refused(problem)
    if len(text) > MAX_ANSWER:
        raise Refused(why(Why.ANSWER_TOO_LONG, most=MAX_ANSWER))
    return text


def _numbers(teams: Iterable[int]) -> str:
    return ", ".join(str(t) for t in sorted(teams))
