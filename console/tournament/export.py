"""The tournament's standings and grid as CSV and JSON (seed 004 §II), and back.

Contract: `standings_csv(t, names)` is one row per team, in the standings' order, with a header
(the team's name last: the columns before it are as they always were);
`tournament_json(t)` is the draw (with its seed), every fight with its teams and result, the
best runner-up's ranking and its shoot-outs, and the standings, JSON-shaped, for the organiser's
page and files; `tournament_from_json(data)` rebuilds the same tournament from it (what a
restart reads back: the draw, the scheme and every result; the rest is derived again). All are
data only: reading and writing files is the caller's.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from typing import Any

from console.games.sports.results import spreadsheet_safe
from console.tournament.draw import Draw
from console.tournament.grid import FightResult, Line, Tournament

CSV_HEADER = ("rank", "team", "group", "reached", "place", "total", "fights", "name")


def standings_csv(t: Tournament, names: Mapping[str, str] | None = None) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for i, row in enumerate(t.standings(), 1):
        fights = "; ".join(f"{fight}:{place}:{total}" for fight, place, total in row.fights)
        name = (names or {}).get(row.team, "")
        writer.writerow((i, row.team, row.group, row.reached.value, "" if row.place is None else row.place,
                         row.total, fights, spreadsheet_safe(name)))
    return out.getvalue()


def tournament_json(t: Tournament) -> dict[str, Any]:
    runner_up = t.runner_up()
    return {
        "draw": {"seed": t.draw.seed, "groups": {g: list(teams) for g, teams in t.draw.groups.items()}},
        "fights": [
            {"id": f.id, "stage": f.stage.value, "teams": None if f.teams is None else list(f.teams),
             "result": None if (r := t.result(f.id)) is None else [
                 {"team": x.team, "place": x.place, "total": x.total, "plus": x.plus,
                  "taken": {str(v): n for v, n in sorted(x.taken.items(), reverse=True)}}
                 for x in sorted(r.lines, key=lambda x: x.place)]}
            for f in t.fights()
        ],
        "scheme": {f: [[g, p] for g, p in seats] for f, seats in t.scheme.items()},
        "runner_up_shootouts": [dict(s) for s in t.runner_up_shootouts()],
        "runner_up": None if runner_up is None else {
            "order": list(runner_up.order), "by": list(runner_up.by),
            "pending": [{"teams": list(p.teams), "first": p.first, "last": p.last}
                        for p in runner_up.pending],
        },
        "standings": [
            {"rank": i, "team": s.team, "group": s.group, "reached": s.reached.value, "place": s.place,
             "total": s.total, "fights": [{"fight": f, "place": p, "total": tot} for f, p, tot in s.fights]}
            for i, s in enumerate(t.standings(), 1)
        ],
    }


def tournament_from_json(data: dict[str, Any]) -> Tournament:
    """The tournament `tournament_json` wrote; ValueError if it does not hold together (a result
    for a fight not formed, the wrong teams: the same checks as when it was first recorded)."""
    draw = Draw(groups={g: tuple(teams) for g, teams in data["draw"]["groups"].items()},
                seed=int(data["draw"]["seed"]))
    scheme = {f: tuple((str(g), int(p)) for g, p in seats) for f, seats in data["scheme"].items()}
    t = Tournament(draw, scheme)
    shootouts = list(data.get("runner_up_shootouts", []))
    # Results in the grid's order (groups, then the fights they form, the final last), the
    # runner-up's shoot-outs before the final they decide.
    for fight in data["fights"]:
        if fight["id"] == "final":
            for scores in shootouts:
                t.record_runner_up_shootout({str(k): int(v) for k, v in scores.items()})
        if fight["result"] is not None:
            t.record(FightResult(fight["id"], tuple(
                Line(team=x["team"], place=int(x["place"]), total=int(x["total"]), plus=int(x["plus"]),
                     taken={int(v): int(n) for v, n in x["taken"].items()})
                for x in fight["result"])))
    return t
