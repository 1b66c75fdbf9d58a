"""`bench latency` runs briefly, with the journal as shipped, and prints its figures (none
asserted but their presence: every sample pressed, lit the lamp, reached the subscriber, and
crossed the broker's and the pty's floors)."""

from __future__ import annotations

import json

import pytest

from bench.latency import main


def test_bench_latency_runs_and_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(samples=5, as_json=True, journal=True) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["samples"] == 5 and result["lost_samples"] == 0 and result["journal"] is True
    for key in ("press_to_subscriber_ms", "floor_ms", "press_to_lamp_ms", "serial_floor_ms"):
        assert result[key]["p50"] > 0, key
    assert set(result["ratio"]) == {"p50", "p99"}
