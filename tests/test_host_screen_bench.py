"""`bench display` runs end to end on a few presses and prints sane figures (no speed asserted:
the figures are in docs/performance.md)."""

from __future__ import annotations

import json

import pytest

from bench.display import PAGES, main


def test_bench_display_runs_and_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(samples=4, as_json=True) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["samples"] == 4
    for page in PAGES:
        figures = result["press_to_dom_ms"][page]
        # A press cannot show before it happened, and takes far less than the 5-s wait.
        assert 0 < figures["p50"] <= figures["p99"] <= figures["max"] < 5000, (page, figures)
    assert result["machine"]["chromium"]
