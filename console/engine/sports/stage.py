"""The sports «Что? Где? Когда?» stage (seed 003 5.2-5.5): the count of each question and the
jury's results sheet, one engine.

Contract: `SportsStage(rules, sheet)` is a `Game` (console/engine/game.py) taking `SportsHost`
(the host's «Время!», console/engine/sports/timer.py) and `SheetEdit` (the jury's sheet,
console/engine/sports/sheet.py). The count tells the sheet which tour is being played, so a
dispute waits for the break between tours (5.4.2). `parts()` is the sheet as retained topics
under ``<base>/sheet/``: ``standings`` (the hall's: the last tour left out until the sheet is
closed when the rules say so), ``jury`` (the jury's overview: standings, removed questions,
each question's count of right and disputed answers), ``teams``, ``appeal`` (the open one with
the answers close to it), ``log`` (the last changes) and ``q/<n>`` per question with an entry
(each team's verdict and answer text), each under the broker's 64 KiB (the sheet caps teams,
names and answers); the parts are rebuilt only when the sheet changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from console.engine.model import Json, Output
from console.engine.sports.sheet import MAX_SHOOTOUT, Sheet, SheetEdit, TeamEntry
from console.engine.sports.standings import Standings
from console.engine.sports.timer import SportsAction, SportsRules, SportsTimer

__all__ = ["SportsStage"]

LOG_SHOWN = 30  # the jury's overview lists the last changes; the journal keeps them all


class SportsStage:
    """See the module docstring."""

    def __init__(self, rules: SportsRules, sheet: Sheet) -> None:
        self.timer = SportsTimer(rules)
        self.sheet = sheet
        self._parts: tuple[tuple[int, bool], dict[str, Json]] | None = None  # ((revision, over), parts)

    # The Game protocol: the count is the timer's; the sheet has no deadlines.

    def handle(self, inp: object, now: int) -> list[Output]:
        if isinstance(inp, SheetEdit):
            out = self.timer.on_timer(now)
            return out + self.sheet.handle(inp, now, self.timer.tour_in_play())
        return self.timer.handle(inp, now)  # type: ignore[arg-type]  # it refuses another game's input

    def handle_all(self, inputs: Sequence[object], now: int) -> list[Output]:
        out: list[Output] = []
        for inp in inputs:
            out += self.handle(inp, now)
        return out

    def on_timer(self, now: int) -> list[Output]:
        return self.timer.on_timer(now)

    def next_deadline(self) -> int | None:
        return self.timer.next_deadline()

    def running_timer(self) -> tuple[str, int] | None:
        return self.timer.running_timer()

    def snapshot(self, now: int) -> dict[str, Json]:
        s = self.sheet
        return {**self.timer.snapshot(now),
                "sheet": {"teams": len(s.teams), "revision": s.revision, "preliminary": s.preliminary,
                          "closed": s.closed}}

    def host_snapshot(self, now: int) -> dict[str, Json]:
        """The timer's, the sheet in brief, and the stage's teams as the organiser's tablet may
        change them (add_team, edit_team: taken at any time, a count running or not). Once the
        stage is over with its winners known (no shoot-out to play) no «Время!» is offered: a
        count then would be a shoot-out question nobody plays."""
        host = self.timer.host_snapshot(now)
        actions = host["host_actions"]
        assert isinstance(actions, list)
        if self.stage_over() and self.sheet.standings().decided:
            actions = [a for a in actions if a != SportsAction.START.value]
        return {**host, "host_actions": [*actions, "add_team", "edit_team"],
                "sheet": self.snapshot(now)["sheet"]}

    # The sheet's retained parts.

    def parts(self) -> dict[str, Json]:
        """The sheet's retained topics (suffix under ``<base>/sheet/`` -> payload)."""
        over = self.stage_over()
        if self._parts is None or self._parts[0] != (self.sheet.revision, over):
            self._parts = ((self.sheet.revision, over), _build_parts(self.sheet, over))
        return self._parts[1]

    def stage_over(self) -> bool:
        """The stage's questions are all asked (the count passed the last, or the jury entered
        it): a tie across the cut now goes to the shoot-out (003 5.5)."""
        last = self.sheet.rules.questions
        counted = self.timer.questions_started >= last and self.timer.running_timer() is None
        # Or the jury has had the last question of every team (a tour's mask for one team is not
        # it), a team added after that included (Sheet.finished).
        return counted or self.sheet.finished


def standings_rows(sheet: Sheet, table: Standings, tours: int, over: bool = True) -> list[Json]:
    """The standings as rows: place, team, tours' points, total, and, once the stage is over
    (`over`), winner or in the shoot-out (before: nobody is called a winner of a stage in play)."""
    tour_points = sheet.all_tour_points()
    rows: list[Json] = []
    for place in table.places:
        team: TeamEntry = sheet.teams[place.team]
        rows.append({"team": team.number, "name": team.name, "town": team.town,
                     "tours": list[Json](tour_points[team.number][:tours]), "total": place.points,
                     "place": place.shown, "position": place.position,
                     "winner": over and place.team in table.winners,
                     "shootout": over and place.team in table.shootout})
    return rows


def _public(sheet: Sheet, over: bool) -> dict[str, Json]:
    rules = sheet.rules
    hidden = rules.hide_last_tour and not sheet.closed and rules.tours > 1
    tours = rules.tours - 1 if hidden else rules.tours
    table = sheet.standings(tours)
    # The last tour with a verdict entered: the board says «после N тура» of what was played.
    played = max((sheet.tour_of(q) or 0 for (_, q), cell in sheet.cells.items()), default=0)
    return {"tours": tours, "of_tours": rules.tours, "last_tour_hidden": hidden, "played_tours": played,
            "preliminary": sheet.preliminary, "closed": sheet.closed, "winners": rules.winners,
            "decided": table.decided and not hidden, "revision": sheet.revision, "stage_over": over,
            "rows": standings_rows(sheet, table, tours, over and not hidden)}


def _build_parts(sheet: Sheet, over: bool) -> dict[str, Json]:
    rules = sheet.rules
    table = sheet.standings()
    by_question: dict[int, list[Json]] = {}
    counts: dict[int, list[int]] = {}  # question -> [right, disputed]
    for (team, q), cell in sorted(sheet.cells.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        entry: list[Json] = [team, cell.verdict.value, cell.answer]
        if cell.verdict.value == "?":
            entry.append(cell.was.value)
        by_question.setdefault(q, []).append(entry)
        count = counts.setdefault(q, [0, 0])
        count[0] += cell.verdict.value == "1"
        count[1] += cell.verdict.value == "?"
    tour_points = sheet.all_tour_points()
    appeal = sheet.appeal
    jury: dict[str, Json] = {
        "revision": sheet.revision, "closed": sheet.closed, "preliminary": sheet.preliminary,
        "stage_over": over, "tours": rules.tours, "questions_per_tour": rules.questions_per_tour,
        "winners": rules.winners, "shootout_asked": sheet.shootout_asked,
        "next_shootout": {"question": rules.questions + sheet.shootout_asked + 1,
                          "teams": list[Json](table.shootout)} if table.shootout else None,
        # [team, total, place, position, winner, in the shoot-out, points by tour]: the names are
        # in the teams part (the two together stay under the broker's limit with 120 teams)
        "standings": [[p.team, p.points, p.shown, p.position, p.team in table.winners,
                       p.team in table.shootout, list[Json](tour_points[p.team])] for p in table.places],
        "disputed": len(sheet.disputed()),
        "removed": {str(q): why for q, why in sorted(sheet.removed.items())},
        "questions": {str(q): list[Json](c) for q, c in counts.items()},
    }
    parts: dict[str, Json] = {
        "standings": _public(sheet, over), "jury": jury,
        "teams": {"revision": sheet.revision,
                  "teams": [{"team": t.number, "name": t.name, "town": t.town, "rating_id": t.rating_id}
                            for t in sheet.teams.values()]},
        "appeal": {"open": False} if appeal is None else {
            "open": True, "team": appeal.team, "question": appeal.question, "answer": appeal.answer,
            "candidates": [[t, a, d] for t, a, d in appeal.candidates]},
        "log": {"revision": sheet.revision,
                "log": [e.view() for e in sheet.log[-LOG_SHOWN:]]},
    }
    # Every question's part, an empty one included: a broker keeps the parts of an earlier
    # stage retained (another evening's answers), and a page would show them as this one's.
    for q in range(1, rules.questions + MAX_SHOOTOUT + 1):
        parts[f"q/{q}"] = {"question": q, "removed": q in sheet.removed, "cells": by_question.get(q, [])}
    return parts
