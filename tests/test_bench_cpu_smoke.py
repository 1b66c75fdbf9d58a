"""`bench cpu` runs briefly and prints its figures (none asserted but their presence and that
each input took CPU: a press that never reached its decision, or a command refused before it
was judged, would still print, so the press path's own test checks the decision itself)."""

from __future__ import annotations

import json

import pytest

from bench.cpu import main


def test_bench_cpu_runs_and_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(samples=20, as_json=True) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("press_us", "angle_sample_us", "host_command_us", "nbody_s", "pi4_ratio"):
        assert result[key] > 0, key
    inputs = {"press_us", "angle_sample_us", "host_command_us"}
    assert set(result["pi4_us"]) == set(result["pi5_us"]) == inputs
    assert result["pi5_us"]["press_us"] < result["pi4_us"]["press_us"]
