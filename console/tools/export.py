"""`chgk-console export JOURNAL...`: a fight's results, or an evening's, as an organiser files them.

Contract: `export(journals, out_dir)` replays each journal (as `chgk-console replay` does: the
same decisions) and writes three files named after it, or, for an evening's journals given in
their order, after the first (``evening-<its date and time>``, the fights numbered on across
them): ``<name>.csv`` (one row per question: the fight, the theme or question number, its
value or stake, every press with its stamp and its delay behind the first, those that did not
count with why, the verdicts, how it ended, the scores after), ``<name>.json`` (the same, and
the standings) and ``<name>.html`` (a printable protocol: the standings, then the questions).
It returns the paths written, or raises `ExportError` saying why not (a file that is not a
journal, a game it cannot protocol, journals of different games). «Своя игра» and
«Брейн-ринг» are protocolled so; the sports stage's journal gives its results sheet as the
last journal leaves it (console/games/sports/results.py: the rating site's .xlsx, the masks,
CSV, JSON and the printable protocol); the table and the quartet keep their own records
(their game record, the tournament's standings).
"""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from console import state_people
from console.engine.sports.stage import SportsStage
from console.games import game, names
from console.games.brainring import texts as brainring_texts
from console.games.sports.results import spreadsheet_safe, write_results
from console.games.svoya import texts as svoya_texts
from console.playback import Scenario, play, read_scenario
from console.wire import events_json

__all__ = ["PROTOCOLLED", "ExportError", "export"]

# The games protocolled here: how their events name a question's start, a press record's
# owner, and a new fight.
_OWNER = {"svoya": "player", "brainring": "team"}
PROTOCOLLED = frozenset(name for name in names() if game(name).protocolled)  # (their kinds say)
_NEW_FIGHT = {"svoya": "game_started", "brainring": "fight_started"}
_END_TEXTS = {"correct": "взят", "all_wrong": "все ответили неверно", "no_signal": "никто не ответил",
              **brainring_texts.END_REASONS}
# Why a press did not count («Брейн-ринг»'s false start is an event of its own: its key here).
_IGNORED = {**svoya_texts.IGNORED, **brainring_texts.PRESS_REASONS,
            "brainring_false_start": brainring_texts.FALSE_START}


class ExportError(Exception):
    """Why a journal cannot be exported (the message names the file)."""


@dataclass
class QuestionRow:
    fight: int
    question: str  # "тема 1, вопрос 2" / "вопрос 3"
    value: int
    started_ns: int | None = None  # when the question began (the value announced), console clock
    # who, pad, at_ns, behind_ms (behind the first of its decision; None: not measured), and
    # for a press that did not count `ignored` (why, as press_ignored says)
    presses: list[dict[str, Any]] = field(default_factory=list)
    verdicts: list[dict[str, Any]] = field(default_factory=list)  # who, correct, delta
    end: str = ""
    winner: str | None = None
    scores: dict[str, int] = field(default_factory=dict)


def export(journals: Path | Sequence[Path], out_dir: Path, warn: TextIO | None = None) -> list[Path]:
    """Write the protocol of a journal, or of an evening's journals in their order (its fights
    numbered on across them), into `out_dir` (see the module docstring). A line that cannot be
    read (not UTF-8 text: a byte damaged, the last line cut inside a letter by a power cut; not
    a step: a time that is not one) is left out and named on `warn` and in the JSON's
    `skipped_lines`: every other line counts."""
    paths_in = [journals] if isinstance(journals, Path) else list(journals)
    if not paths_in:
        raise ExportError("no journal given")
    skipped: list[str] = []
    scenarios = {path: _scenario(path, skipped) for path in paths_in}
    for problem in skipped:
        print(f"chgk-console export: {problem}", file=warn or io.StringIO())
    stage = _sports_stage(scenarios[paths_in[-1]])
    if stage is not None:  # the sports stage: its sheet as the last journal holds it
        out_dir.mkdir(parents=True, exist_ok=True)
        return write_results(stage.sheet, out_dir / paths_in[-1].name.removesuffix(".jsonl"),
                             over=stage.stage_over())
    kind = ""
    rows: list[QuestionRow] = []
    names: dict[str, str] = {}
    for journal in paths_in:
        journal_kind, journal_rows, journal_names = _journal(journal, scenarios[journal])
        if kind and journal_kind != kind:
            raise ExportError(f"{journal}: a {journal_kind!r} game, the journals before it are {kind!r}")
        kind = journal_kind
        offset = rows[-1].fight if rows else 0
        for row in journal_rows:
            row.fight += offset
        rows += journal_rows
        names.update(journal_names)
    standings = _standings(rows, names)
    out_dir.mkdir(parents=True, exist_ok=True)
    first = paths_in[0].name.removesuffix(".jsonl")
    stem = out_dir / (first if len(paths_in) == 1 else f"evening-{first.removeprefix('journal-')}")
    paths = [stem.with_suffix(".csv"), stem.with_suffix(".json"), stem.with_suffix(".html")]
    paths[0].write_text(_csv(rows, names), encoding="utf-8")
    titles = ", ".join(j.name for j in paths_in)
    document = {"journal": titles, "journals": [j.name for j in paths_in], "game": kind, "names": names,
                "standings": standings, "questions": [vars(r) for r in rows], "skipped_lines": skipped}
    paths[1].write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    paths[2].write_text(_html(titles, kind, rows, names, standings), encoding="utf-8")
    return paths


def _scenario(journal: Path, skipped: list[str]) -> Scenario:
    """The journal's steps, each line that cannot be read named in `skipped` (and left out)."""
    try:
        data = journal.read_bytes()
    except OSError as exc:
        raise ExportError(f"{journal}: cannot read it ({exc.strerror})") from None
    lines = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            lines.append("")  # keeps the numbering of the lines after it
            skipped.append(f"{journal.name}:{number}: not UTF-8 text (a damaged byte, or a line cut by "
                           "a power cut); line skipped")
    problems = io.StringIO()
    scenario = read_scenario(lines, journal.name, problems)
    if scenario is None or scenario.header is None:
        raise ExportError(f"{journal}: not a journal ({problems.getvalue().strip() or 'no config line'})")
    skipped += [line.removeprefix("replay: ") for line in problems.getvalue().splitlines() if line]
    return scenario


def _sports_stage(scenario: Scenario) -> SportsStage | None:
    """The sports stage as its journal leaves it (None: another game's journal)."""
    if scenario.config.game.kind != "sports":
        return None
    engine = play(scenario).referee
    assert isinstance(engine, SportsStage)
    return engine


def _journal(journal: Path, scenario: Scenario) -> tuple[str, list[QuestionRow], dict[str, str]]:
    """One journal replayed: its game, its questions' rows and the names of whom they name."""
    kind = scenario.config.game.kind
    if kind not in _OWNER:
        raise ExportError(f"{journal}: a {kind!r} game: its results are its game record or the "
                          "tournament's standings; this protocol is for «Своя игра» and «Брейн-ринг»")
    events: list[dict[str, Any]] = []
    table = play(scenario, on_step=lambda outputs: events.extend(events_json(outputs)))
    before = len(table.outputs)
    table.run_out()
    events.extend(events_json(table.outputs[before:]))
    names = state_people.names(table.referee.snapshot(table.now))
    # A player who left the fight is not in its last state: named by the events that named them.
    for e in events:
        if e["type"] in ("player_removed", "player_added", "player_renamed") and e["player"] not in names:
            names[e["player"]] = e["name"]
    return kind, _rows(kind, events), names


def _rows(kind: str, events: list[dict[str, Any]]) -> list[QuestionRow]:
    """One row per question played or withdrawn, from the replayed events."""
    owner = _OWNER[kind]
    rows: list[QuestionRow] = []
    fight = 1
    current: QuestionRow | None = None
    for e in events:
        t = e["type"]
        if t == _NEW_FIGHT[kind] and (rows or current):
            fight += 1
        elif t == "question_started":
            if kind == "svoya":
                label = f"тема {e.get('theme_name') or e['theme']}, вопрос {e['number']}"
                value = int(e["value"])
            else:
                label = f"{'дополнительный ' if e['extra'] else ''}вопрос {e['question']}"
                value = int(e["stake"])
            began = e.get("announced_at_ns", e.get("started_at_ns"))
            current = QuestionRow(fight=fight, question=label, value=value,
                                  started_ns=began if isinstance(began, int) else None)
            rows.append(current)
        elif current is None:
            continue
        elif t == "signal_accepted":
            current.presses += [{"who": p[owner], "pad": p["pad"], "at_ns": p["at_ns"],
                                 "behind_ms": p["behind_ms"]} for p in e["presses"]]
        elif t == "false_start":  # «Брейн-ринг»: pressed during the reading, out of the question
            current.presses.append({"who": e[owner], "pad": e["pad"], "at_ns": e["at_ns"],
                                    "behind_ms": None, "ignored": "brainring_false_start"})
        elif t == "press_ignored":  # a press that did not count, with why (and how far behind)
            current.presses.append({"who": e[owner], "pad": e["pad"], "at_ns": e["at_ns"],
                                    "behind_ms": e.get("behind_ms"), "ignored": e["reason"]})
        elif t == "answer_judged":
            current.verdicts.append({"who": e[owner], "correct": e["correct"], "delta": e["delta"],
                                     **({"by": e["by"]} if e.get("by") == "timeout" else {})})
        elif t == "judgement_undone":
            current.verdicts.append({"who": e[owner], "undone": True, "delta": e["delta"]})
        elif t == "question_ended":
            current.end, current.winner = e["reason"], e["winner"]
            current.scores = {str(k): int(v) for k, v in e["scores"].items()}
        elif t in ("judgement_reversed", "score_adjusted") and rows:
            rows[-1].verdicts.append({"who": e[owner], "correction": t, "delta": e["delta"],
                                      "reason": e["reason"]})
            rows[-1].scores = {str(k): int(v) for k, v in e["scores"].items()}
    return rows


def _standings(rows: list[QuestionRow], names: dict[str, str]) -> list[dict[str, Any]]:
    """Each fight's final scores, best first (the last row of the fight with scores)."""
    finals: dict[int, dict[str, int]] = {}
    for row in rows:
        if row.scores:
            finals[row.fight] = row.scores
    return [{"fight": fight, "places": [{"who": who, "name": names.get(who, who), "score": score}
                                        for who, score in sorted(scores.items(), key=lambda kv: -kv[1])]}
            for fight, scores in sorted(finals.items())]


def _presses_text(row: QuestionRow, names: dict[str, str]) -> str:
    """Each press as a person reads it: when after the question began, how far behind the first
    (the JSON keeps the stamps on the console's clock)."""
    parts = []
    for p in row.presses:
        when = ("" if row.started_ns is None
                else f", {_seconds((p['at_ns'] - row.started_ns) / 1e9)} с от начала вопроса")
        behind = "" if p["behind_ms"] is None else f", +{str(p['behind_ms']).replace('.', ',')} мс"
        ignored = f", не засчитано: {_IGNORED.get(p['ignored'], p['ignored'])}" if "ignored" in p else ""
        parts.append(f"{names.get(p['who'], p['who'])} ({p['pad']}{when}{behind}{ignored})")
    return "; ".join(parts)


def _seconds(value: float) -> str:
    """3.25 -> "3,250": seconds to the millisecond, with the Russian decimal comma."""
    return f"{value:.3f}".replace(".", ",")


def _verdicts_text(row: QuestionRow, names: dict[str, str]) -> str:
    parts = []
    for v in row.verdicts:
        who = names.get(v["who"], v["who"])
        if v.get("undone"):
            parts.append(f"{who}: решение отменено ({v['delta']:+d})")
        elif "correction" in v:
            what = "решение пересмотрено" if v["correction"] == "judgement_reversed" else "поправка"
            parts.append(f"{who}: {what} {v['delta']:+d} ({v['reason']})")
        else:
            late = " (ответ не начат за 3 секунды)" if v.get("by") == "timeout" else ""
            parts.append(f"{who}: {'верно' if v['correct'] else 'неверно'}{late} {v['delta']:+d}")
    return "; ".join(parts)


def _scores_text(scores: dict[str, int], names: dict[str, str]) -> str:
    return "; ".join(f"{names.get(k, k)} {v}" for k, v in scores.items())


def _csv(rows: list[QuestionRow], names: dict[str, str]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["бой", "вопрос", "стоимость", "нажатия (время на источнике, задержка за первым)",
                     "решения", "итог", "кто взял", "счёт после"])
    for row in rows:
        writer.writerow([row.fight, spreadsheet_safe(row.question), row.value,
                         spreadsheet_safe(_presses_text(row, names)),
                         spreadsheet_safe(_verdicts_text(row, names)), _END_TEXTS.get(row.end, row.end),
                         spreadsheet_safe(names.get(row.winner or "", row.winner or "")),
                         spreadsheet_safe(_scores_text(row.scores, names))])
    return out.getvalue()



def _html(journal: str, kind: str, rows: list[QuestionRow], names: dict[str, str],
          standings: list[dict[str, Any]]) -> str:
    e = html.escape
    title = {"svoya": "«Своя игра»", "brainring": "«Брейн-ринг»"}[kind]
    parts = [f"<!doctype html><html lang=\"ru\"><head><meta charset=\"utf-8\"><title>Протокол: {e(journal)}"
             "</title><style>body{font:14px/1.4 'DejaVu Sans',sans-serif;margin:2em}"
             "table{border-collapse:collapse;width:100%;margin:1em 0}"
             "td,th{border:1px solid #999;padding:3px 6px;vertical-align:top;text-align:left}"
             "th{background:#eee}@media print{body{margin:0}h2{break-before:auto}}</style></head><body>",
             f"<h1>Протокол игры {e(title)}</h1><p>Журнал: {e(journal)}</p>"]
    for fight in standings:
        parts.append(f"<h2>Бой {fight['fight']}: итог</h2><table><tr><th>место</th><th>участник</th>"
                     "<th>очки</th></tr>")
        parts += [f"<tr><td>{i}</td><td>{e(p['name'])}</td><td>{p['score']}</td></tr>"
                  for i, p in enumerate(fight["places"], 1)]
        parts.append("</table>")
    parts.append("<h2>Вопросы</h2><table><tr><th>бой</th><th>вопрос</th><th>стоимость</th><th>нажатия</th>"
                 "<th>решения</th><th>итог</th><th>счёт после</th></tr>")
    for row in rows:
        cells = [str(row.fight), e(row.question), str(row.value), e(_presses_text(row, names)),
                 e(_verdicts_text(row, names)), e(_END_TEXTS.get(row.end, row.end)),
                 e(_scores_text(row.scores, names))]
        parts.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    parts.append("</table></body></html>\n")
    return "".join(parts)
