"""The tournament's standings and grid as CSV and JSON (seed 004 §II).

Contract: `standings_csv(t)` is one row per team, in the standings' order, with a header;
`tournament_json(t)` is the draw (with its seed), every fight with its teams and result, the
best runner-up's ranking and the standings, JSON-shaped, for the organiser's page and files.
Both are text/data only: writing them anywhere is the caller's.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from console.tournament.grid import Tournament

CSV_HEADER = ("rank", "team", "group", "reached", "place", "total", "fights")


def standings_csv(t: Tournament) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for i, row in enumerate(t.standings(), 1):
        fights = "; ".join(f"{fight}:{place}:{total}" for fight, place, total in row.fights)
        writer.writerow((i, row.team, row.group, row.reached.value, "" if row.place is None else row.place,
                         row.total, fights))
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
