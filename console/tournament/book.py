"""The tournament's book: the grid, where each result came from, what did not fit. No I/O.

Contract: a `Book` wraps the pure grid (`grid.Tournament`) for the service. `offer(table,
lines)` takes a fight's places as a table sent them (a ``fight_over`` event, or the retained
state of a fight that is over: `lines_from_event`, `lines_from_state`) and finds the grid's
fight by its teams (every fight of the grid has a different set of teams: a group's four, two
groups' places per semi-final or consolation fight, the final's semi-final winners from three
fights), then records it. It says what happened (`Offer.kind`):

- ``recorded``: a new result, counted;
- ``repeat``: the result that fight already has (a message delivered again, the state after the
  event): ignored, counted once;
- ``updated``: the table that sent the fight's result sends another (an appeal upheld after
  the fight, 004 4.3): taken in its place, unless a fight played since was formed from the old
  one (then a conflict);
- ``conflict``: the fight has a different result from another table, or one the grid can no
  longer take: not taken, kept as a problem for the organiser, once per different result;
- ``waiting``: tournament teams whose fight is not formed yet (a result that came before the
  ones it depends on): kept and offered again after each result recorded;
- ``foreign``: not a fight of this tournament (a team it does not know): a problem.

`document()` is everything to keep (the draw with its seed, the results in the order recorded
with their tables, the waiting results, the runner-up shoot-outs, the problems) and
`Book.from_document` rebuilds the same book from it; `view()` is the grid's JSON
(`export.tournament_json`) with the teams' names, problems and the tables' view, for the page.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from console.tournament.config import Team
from console.tournament.draw import Draw
from console.tournament.export import tournament_json
from console.tournament.grid import FightResult, Line, Tournament

FORMAT = 1


@dataclass(frozen=True, slots=True)
class Offer:
    kind: str  # recorded | repeat | updated | conflict | waiting | foreign
    fight: str | None
    message: str = ""


def lines_from_event(event: Mapping[str, Any]) -> tuple[Line, ...] | None:
    """The places of a ``fight_over`` event (docs/mqtt-quartet.md); None for any other event."""
    if event.get("type") != "fight_over":
        return None
    return FightResult.from_fight_over("", event).lines


def lines_from_state(state: Mapping[str, Any]) -> tuple[Line, ...] | None:
    """The places of a quartet fight's retained state once it is over (phase ``over``: the same
    figures its ``fight_over`` carried); None before that or for another game."""
    places = state.get("places")
    teams = state.get("teams")
    if state.get("game") != "quartet" or state.get("phase") != "over" or not isinstance(places, dict) \
            or not isinstance(teams, list):
        return None
    by_id = {t["id"]: t for t in teams if isinstance(t, dict)}
    order = places.get("order")
    if not isinstance(order, list) or places.get("pending"):
        return None
    event = {"type": "fight_over", "places": [
        {"place": i + 1, "team": team, "total": by_id[team]["total"], "plus": by_id[team]["plus"],
         "taken": by_id[team]["taken"]} for i, team in enumerate(order)]}
    return lines_from_event(event)


def lines_json(lines: Sequence[Line]) -> list[dict[str, Any]]:
    return [{"team": x.team, "place": x.place, "total": x.total, "plus": x.plus,
             "taken": {str(v): n for v, n in sorted(x.taken.items(), reverse=True)}}
            for x in sorted(lines, key=lambda x: x.place)]


def lines_from_json(raw: Sequence[Mapping[str, Any]]) -> tuple[Line, ...]:
    return FightResult.from_fight_over("", {"places": list(raw)}).lines


class Book:
    def __init__(self, name: str, teams: Sequence[Team], draw: Draw) -> None:
        self.name = name
        self.teams = {t.id: t.name for t in teams}
        self.tournament = Tournament(draw)
        self.tables_of: dict[str, str] = {}  # fight -> the table its result came from
        self.order: list[str] = []  # fights in the order their results were recorded
        self.waiting: list[tuple[str, tuple[Line, ...]]] = []
        self.shootouts: list[dict[str, int]] = []
        self.problems: list[dict[str, Any]] = []
        self.tables: dict[str, dict[str, Any]] = {}  # live only: node -> what the page shows

    # ------------------------------------------------------------------ results

    def fight_of(self, teams: set[str]) -> str | None:
        found = [f.id for f in self.tournament.fights() if f.teams is not None and set(f.teams) == teams]
        return found[0] if found else None

    def offer(self, table: str, lines: tuple[Line, ...]) -> Offer:
        teams = {x.team for x in lines}
        unknown = sorted(teams - set(self.teams))
        if unknown:
            return self._problem(table, None, lines, f"стол {table}: команды {', '.join(unknown)} не "
                                                     "участвуют в турнире; результат не учтён", "foreign")
        fight = self.fight_of(teams)
        if fight is None:
            if all(w != (table, lines) for w in self.waiting):
                self.waiting.append((table, lines))
            return Offer("waiting", None, f"стол {table}: бой {', '.join(sorted(teams))} ещё не "
                                          "сформирован в сетке; результат ждёт")
        try:
            fresh = self.tournament.record(FightResult(fight, lines))
        except ValueError as exc:
            known = self.tournament.result(fight)
            if known is None:  # wrong places (1..n each once): the grid's own reason
                return self._problem(table, fight, lines, f"стол {table}, бой {fight}: {exc}", "conflict")
            if self.tables_of.get(fight) == table:
                return self._replace(table, fight, lines)
            return self._problem(table, fight, lines, f"стол {table}: у боя {fight} уже другой результат "
                                                      f"(со стола {self.tables_of.get(fight, '?')}); "
                                                      "новый не учтён, решает оргкомитет (4.4)", "conflict")
        if not fresh:
            return Offer("repeat", fight)
        self.tables_of[fight] = table
        self.order.append(fight)
        self.waiting = [w for w in self.waiting if w != (table, lines)]
        self._retry_waiting()
        return Offer("recorded", fight)

    def _replace(self, table: str, fight: str, lines: tuple[Line, ...]) -> Offer:
        """The fight's own table sent a new result for it (4.3): taken if the grid can."""
        try:
            self.tournament.replace(FightResult(fight, lines))
        except ValueError:
            why = (f"стол {table}: новый результат боя {fight} (апелляция?) не учтён: после него уже "
                   "сыграны бои, составленные по прежнему; решает оргкомитет (4.4)")
            return self._problem(table, fight, lines, why, "conflict")
        self._retry_waiting()
        return Offer("updated", fight, f"стол {table}: результат боя {fight} изменён (4.3) и учтён вместо "
                                       "прежнего")

    def _retry_waiting(self) -> None:
        progress = True
        while progress:
            progress = False
            for table, lines in list(self.waiting):
                if self.fight_of({x.team for x in lines}) is not None:
                    self.waiting.remove((table, lines))
                    if self.offer(table, lines).kind == "recorded":
                        progress = True

    def _problem(self, table: str, fight: str | None, lines: tuple[Line, ...], message: str,
                 kind: str) -> Offer:
        key = json.dumps([table, fight, lines_json(lines)], ensure_ascii=False, sort_keys=True)
        if all(p["key"] != key for p in self.problems):
            self.problems.append({"key": key, "table": table, "fight": fight, "message": message,
                                  "places": lines_json(lines)})
            return Offer(kind, fight, message)
        return Offer(kind, fight, "")  # said already: a repeat of the same problem says nothing new

    def runner_up_shootout(self, scores: Mapping[str, int]) -> None:
        """The shoot-out among runners-up tied for the final (2.2.3, 3.10); ValueError if none is due."""
        self.tournament.record_runner_up_shootout(scores)
        self.shootouts.append(dict(scores))
        self._retry_waiting()

    # ------------------------------------------------------------------ keeping

    def document(self) -> dict[str, Any]:
        draw = self.tournament.draw
        return {
            "format": FORMAT,
            "name": self.name,
            "teams": [{"id": t, "name": n} for t, n in self.teams.items()],
            "draw": {"seed": draw.seed, "groups": {g: list(ts) for g, ts in draw.groups.items()}},
            "results": [{"fight": f, "table": self.tables_of[f],
                         "places": lines_json(self._result(f).lines)} for f in self.order],
            # Copies, never the book's own lists: the service tells a change by comparing this
            # document with the last one saved (a shared list compared equal to itself, and a
            # shoot-out or a problem was never written).
            "runner_up_shootouts": [dict(s) for s in self.shootouts],
            "waiting": [{"table": t, "places": lines_json(lines)} for t, lines in self.waiting],
            "problems": [dict(p) for p in self.problems],
        }

    def _result(self, fight: str) -> FightResult:
        result = self.tournament.result(fight)
        assert result is not None
        return result

    @staticmethod
    def from_document(doc: Mapping[str, Any]) -> Book:
        if doc.get("format") != FORMAT:
            raise ValueError(f"a tournament document of format {doc.get('format')!r}, not {FORMAT}")
        teams = [Team(t["id"], t["name"]) for t in doc["teams"]]
        groups = {g: tuple(ts) for g, ts in doc["draw"]["groups"].items()}
        draw = Draw(groups=groups, seed=int(doc["draw"]["seed"]))
        book = Book(str(doc["name"]), teams, draw)
        shootouts = list(doc.get("runner_up_shootouts", []))
        for saved in doc.get("results", []):
            # Each shoot-out played before this result, a shoot-out that tied again and its
            # replay included (3.10).
            race = book.tournament.runner_up()
            while race is not None and race.pending and shootouts:
                book.runner_up_shootout(shootouts.pop(0))
                race = book.tournament.runner_up()
            fight = str(saved["fight"])
            book.tournament.record(FightResult(fight, lines_from_json(saved["places"])))
            book.tables_of[fight] = str(saved["table"])
            book.order.append(fight)
        for scores in shootouts:
            book.runner_up_shootout(scores)
        book.waiting = [(str(w["table"]), lines_from_json(w["places"])) for w in doc.get("waiting", [])]
        book.problems = list(doc.get("problems", []))
        return book

    # ------------------------------------------------------------------ showing

    def view(self) -> dict[str, Any]:
        grid = tournament_json(self.tournament)
        for fight in grid["fights"]:
            fight["table"] = self.tables_of.get(fight["id"])
        return {
            "name": self.name,
            "teams": dict(self.teams),
            **grid,
            "waiting": [{"table": t, "places": lines_json(lines)} for t, lines in self.waiting],
            "problems": [{k: v for k, v in p.items() if k != "key"} for p in self.problems],
            "tables": {node: dict(info) for node, info in sorted(self.tables.items())},
        }
