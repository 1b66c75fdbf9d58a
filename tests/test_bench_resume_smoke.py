"""`bench resume` runs briefly and prints its figures: the recorded evening has checkpoints,
a resume reads at most the lines after the one before its last (the worst moment for a
crash), and without checkpoints it replays every line."""

from __future__ import annotations

import json

import pytest

from bench.resume import main
from console.shell.runtime import CHECKPOINT_LINES


def test_bench_resume_runs_and_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(as_json=True, minutes=(8.0,), runs=1) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("fresh_rss_mb", "8min_lines", "8min_resume_s", "8min_rss_mb", "8min_rss_vs_fresh",
                "8min_full_replay_s", "8min_full_rss_mb"):
        assert key in result, key
    assert result["8min_lines"] > CHECKPOINT_LINES  # cut before its last checkpoint: an earlier one stands
    assert 0 < result["8min_replayed"] <= CHECKPOINT_LINES + 1_300 < result["8min_lines"]
