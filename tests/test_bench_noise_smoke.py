"""`bench noise` runs briefly and prints its figures: the run really interleaved presses with
garbage, and what the bench says must be 0 is (no press lost, no wrong winner, no break of
the clock)."""

from __future__ import annotations

import json

import pytest

from bench.noise import main


def test_bench_noise_runs_and_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(total_bytes=50_000, as_json=True) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("presses_lost", "wrong_winners", "garbage_bytes", "bad_frames_reported", "clock_breaks"):
        assert key in result, key
    assert result["garbage_bytes"] >= 50_000 and result["presses_sent"] > 0
    assert result["bad_frames_reported"] > 0  # the garbage was there
    assert (result["presses_lost"], result["wrong_winners"], result["clock_breaks"]) == (0, 0, 0)
