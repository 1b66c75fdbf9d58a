"""`bench press-path` runs briefly and prints its figures (none asserted but their presence:
each sample's press took the turn, lit its lamp and produced its event, or it would have no
stage to time)."""

from __future__ import annotations

import json

import pytest

from bench.press_path import STAGES, main


def test_bench_press_path_runs_and_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(samples=5, as_json=True) == 0
    result = json.loads(capsys.readouterr().out)
    for run in ("warm_us", "idle_us"):
        assert set(result[run]) == set(STAGES)
        assert all(result[run][stage]["p50"] > 0 for stage in STAGES)
    assert result["idle_over_warm"] > 0
