"""The sports stage's results as an organiser files them (seed 003 5.2-5.5;
../shared/notes/sports-results.md): the rating site's tournament file and the protocol.

Contract: `write_results(sheet, stem)` writes, beside `stem` (a path without suffix):
``.xlsx`` the rating site's tournament file (one sheet, header ``Team ID | Название | Город |
1 | 2 | … | N``, a row per team, a cell per question of the stage: 1, 0, ``?`` for a dispute not
decided, ``X`` for a removed question; openpyxl), ``.txt`` each team's mask (number, name,
mask, tab-separated), ``.csv`` the standings (place, team, tours, total, mask), ``.json`` all
of it with every change of the sheet (who, when, why), and ``.html`` a printable protocol: the
standings with the winners and the shoot-out, the removed questions and the jury's decisions.
Until the stage is over (`over`: its questions all asked, SportsStage.stage_over) no team is
called a winner or said to be in a shoot-out: the standings so far, as the hall's board shows
them (docs/sports-sheet.md). Returns the paths written, in that order. No text becomes a
formula: in the .xlsx a name beginning with ``=`` is a text cell as it is; in the CSV (which a
spreadsheet reads by its first character) a cell beginning with ``=``, ``+``, ``-``, ``@`` gets
a leading ``'``.
"""

from __future__ import annotations

import csv
import html
import io
import json
from pathlib import Path
from typing import Any

from openpyxl import Workbook

from console.engine.sports.sheet import Sheet

__all__ = ["HEADER", "spreadsheet_safe", "write_results"]

HEADER = ["Team ID", "Название", "Город"]  # then the questions 1..N (the rating site's file)
_DECISIONS = ("decide", "uphold_appeal", "reject_appeal", "remove_question", "restore_question",
              "reopen_sheet", "close_sheet")


def write_results(sheet: Sheet, stem: Path, *, over: bool = True) -> list[Path]:
    paths = [stem.with_suffix(s) for s in (".xlsx", ".txt", ".csv", ".json", ".html")]
    _xlsx(sheet, paths[0])
    masks = "".join(f"{t.number}\t{t.name}\t{sheet.mask(t.number)}\n" for t in sheet.teams.values())
    paths[1].write_text(masks, encoding="utf-8")
    paths[2].write_text(_csv(sheet, over), encoding="utf-8")
    document = json.dumps(_document(sheet, over), ensure_ascii=False, indent=1)
    paths[3].write_text(document + "\n", encoding="utf-8")
    paths[4].write_text(_html(sheet, over), encoding="utf-8")
    return paths


def spreadsheet_safe(text: str) -> str:
    """A CSV cell's text that no spreadsheet takes for a formula (a leading ' where it would)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _mark_cell(mark: str) -> int | str:
    return int(mark) if mark in ("0", "1") else mark


def _xlsx(sheet: Sheet, path: Path) -> None:
    book = Workbook()
    page = book.active
    assert page is not None  # a new workbook has its one sheet
    page.title = "Результаты"
    page.append([*HEADER, *range(1, sheet.rules.questions + 1)])
    for team in sheet.teams.values():
        page.append([team.rating_id if team.rating_id else "", team.name, team.town,
                     *(_mark_cell(m) for m in sheet.mask(team.number))])
        for cell in page[page.max_row][1:3]:  # a name that starts like a formula is text as it is
            if isinstance(cell.value, str) and cell.value.startswith("="):
                cell.data_type = "s"
    book.save(path)


def _rows(sheet: Sheet, over: bool) -> list[dict[str, Any]]:
    table = sheet.standings()
    tours = sheet.all_tour_points()
    rows = []
    for place in table.places:
        team = sheet.teams[place.team]
        rows.append({"place": place.shown, "position": place.position, "team": team.number,
                     "name": team.name, "town": team.town, "rating_id": team.rating_id,
                     "tours": tours[team.number], "total": place.points, "mask": sheet.mask(team.number),
                     "winner": over and place.team in table.winners,
                     "shootout": over and place.team in table.shootout})
    return rows


def _csv(sheet: Sheet, over: bool) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    tours = [f"тур {n}" for n in range(1, sheet.rules.tours + 1)]
    writer.writerow(["место", "номер", "команда", "город", "ID рейтинга", *tours, "сумма", "маска",
                     "победитель"])
    for r in _rows(sheet, over):
        writer.writerow([r["place"], r["team"], spreadsheet_safe(r["name"]), spreadsheet_safe(r["town"]),
                         r["rating_id"] or "",
                         *r["tours"], r["total"], r["mask"], "да" if r["winner"] else ""])
    return out.getvalue()


def _document(sheet: Sheet, over: bool) -> dict[str, Any]:
    table = sheet.standings()
    return {
        "tours": sheet.rules.tours, "questions_per_tour": sheet.rules.questions_per_tour,
        "stage_over": over, "winners": list(table.winners) if over else [], "decided": over and table.decided,
        "shootout_open": list(table.shootout) if over else [],
        "preliminary": sheet.preliminary, "closed": sheet.closed,
        "standings": _rows(sheet, over),
        "removed": {str(q): why for q, why in sorted(sheet.removed.items())},
        "disputed": [[t, q] for t, q in sheet.disputed()],
        "shootout": [sorted(right) for right in sheet.shootout_answers()],
        "answers": [[t, q, c.verdict.value, c.answer]
                    for (t, q), c in sorted(sheet.cells.items()) if c.answer],
        "changes": [e.view() for e in sheet.log],
    }


def _html(sheet: Sheet, over: bool) -> str:
    e = html.escape
    table = sheet.standings()
    tours = sheet.rules.tours
    head = "".join(f"<th>{n}</th>" for n in range(1, tours + 1))
    body = []
    for r in _rows(sheet, over):
        mark = " class=winner" if r["winner"] else " class=shootout" if r["shootout"] else ""
        cells = "".join(f"<td>{p}</td>" for p in r["tours"])
        body.append(f"<tr{mark}><td>{e(r['place'])}</td><td>{r['team']}</td><td>{e(r['name'])}</td>"
                    f"<td>{e(r['town'])}</td>{cells}<td><b>{r['total']}</b></td>"
                    f"<td class=mask>{e(r['mask'])}</td></tr>")
    state = ("предварительные результаты: не решены спорные ответы или апелляция" if sheet.preliminary
             else "результаты окончательные" if sheet.closed else "протокол не закрыт")
    winners = ", ".join(e(sheet.teams[t].name) for t in table.winners) if over else "этап ещё идёт"
    tied = ", ".join(e(sheet.teams[t].name) for t in table.shootout)
    shootout = f"<p>Перестрелка ещё не окончена: {tied}</p>" if table.shootout and over else ""
    asked = sheet.shootout_answers()
    if asked:
        lines = "".join(f"<li>вопрос {sheet.rules.questions + i}: верно — "
                        f"{', '.join(str(t) for t in sorted(right)) or 'никто'}</li>"
                        for i, right in enumerate(asked, start=1))
        shootout += f"<h2>Перестрелка (003 5.5)</h2><ul>{lines}</ul>"
    removed = "".join(f"<li>вопрос {q}: {e(why)}</li>" for q, why in sorted(sheet.removed.items()))
    decisions = "".join(f"<li>{e(x.text)}{f' — {e(x.why)}' if x.why else ''} "
                        f"<small>({e(x.by)}{', ' + e(x.when) if x.when else ''})</small></li>"
                        for x in sheet.log if x.action in _DECISIONS)
    return f"""<!doctype html>
<html lang="ru"><head><meta charset="utf-8"><title>Протокол первого этапа</title>
<style>body{{font-family:sans-serif;margin:1.5em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #999;padding:.2em .5em;text-align:center}}
td:nth-child(3),td:nth-child(4){{text-align:left}}
tr.winner td{{background:#e6f4e6}}tr.shootout td{{background:#fff4d6}}.mask{{font-family:monospace}}
@media print{{body{{margin:0}}}}</style></head><body>
<h1>Спортивное «Что? Где? Когда?»: протокол</h1>
<p>{sheet.rules.tours} тура по {sheet.rules.questions_per_tour} вопросов (003 5.2); {e(state)}.</p>
<p>Победители этапа ({sheet.rules.winners}, 003 5.5): {winners or '—'}</p>{shootout}
<table><thead><tr><th>место</th><th>№</th><th>команда</th><th>город</th>{head}<th>сумма</th><th>маска</th></tr></thead>
<tbody>{''.join(body)}</tbody></table>
<h2>Снятые вопросы</h2><ul>{removed or '<li>нет</li>'}</ul>
<h2>Решения жюри</h2><ul>{decisions or '<li>нет</li>'}</ul>
</body></html>
"""
