"""`bench storm` runs briefly and prints its figures: the storm really chattered and
questions were played through it, and no event the daemon published was lost on the way to
the subscriber (the bench says it must be 0)."""

from __future__ import annotations

import json

import pytest

from bench.storm import main


def test_bench_storm_runs_and_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(seconds=1.0, as_json=True) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("events_lost", "press_to_subscriber_ms", "cpu_percent_of_one_core", "journal_bytes_per_s"):
        assert key in result, key
    assert result["presses_sent"] > 500 and result["questions"] > 0
    assert result["events_published"] > 0
    assert result["events_lost"] == result["events_published"] - result["events_received"] == 0
    assert result["journal_bytes_per_s"] > 0 and result["press_to_subscriber_ms"]["p99"] > 0
