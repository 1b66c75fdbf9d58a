"""`bench sheet` runs briefly and prints its figures (none asserted but their presence, that each
took CPU, and that the appeal searches found the close answers the bench sheet holds)."""

from __future__ import annotations

import json

import pytest

from bench.sheet import SheetTable, main


def test_bench_sheet_runs_and_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(as_json=True, teams=6, nbody_steps=20_000) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("tour_by_question_ms", "tour_by_team_ms", "edit_us", "similar_search_ms", "pi4_ratio"):
        assert result[key] > 0, key
    assert set(result["pi4"]) >= {"similar_search_ms", "tour_by_question_ms"}


def test_the_bench_commands_are_taken_by_the_console() -> None:
    """What the bench times is the sheet changing, not a refusal."""
    table = SheetTable(3)
    table.jury({"action": "set_question", "question": 1, "teams": [1, 3]})
    table.jury({"action": "set_cell", "team": 2, "question": 1, "verdict": "0", "answer": "Гагарин"})
    table.jury({"action": "set_cell", "team": 3, "question": 2, "verdict": "0", "answer": "гагарин"})
    table.jury({"action": "set_cell", "team": 1, "question": 2, "verdict": "0", "answer": "Гагарин"})
    table.jury({"action": "open_appeal", "team": 1, "question": 2})
    sheet = table.console.referee.sheet  # type: ignore[attr-defined]
    assert sheet.revision == 5 and sheet.all_points() == {1: 1, 2: 0, 3: 1}
    assert [t for t, _, _ in sheet.appeal.candidates] == [3]
