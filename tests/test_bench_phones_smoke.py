"""`bench phones` runs end to end and prints sane figures (no speed or fairness target
asserted: those are the benchmark's to print), cut short: one question at each of two gaps,
one press at each of two forged claims, CPU phases of 2 s, a short yardstick."""

from __future__ import annotations

import json

import pytest

import bench.phones
from bench.phones import main


def test_bench_phones_runs_and_prints_its_figures(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench.phones, "CPU_SECONDS", 2)
    monkeypatch.setattr(bench.phones, "GAPS_MS", (20, 100))
    monkeypatch.setattr(bench.phones, "FORGED_MS", (10, 200))
    monkeypatch.setattr(bench.phones, "FORGED_TRIALS", 1)
    monkeypatch.setattr(bench.phones, "DECISION_S", 2.0)  # a refused claim waits this long
    monkeypatch.setattr(bench.phones, "NBODY_STEPS", 20_000)
    assert main(samples=1, as_json=True) == 0, capsys.readouterr().err
    result = json.loads(capsys.readouterr().out)
    assert set(result["order"]) == {"20", "100"}
    for gap in result["order"].values():
        assert gap["ordered_right"] + gap["photo_finish"] + gap["wrong"] + gap["undecided"] == 1
    assert set(result["forged"]["claimed_earlier_ms"]) == {"10", "200"}
    cpu = result["cpu"]
    assert cpu["seconds"] == 2 and cpu["us_per_heartbeat"] > 0 and cpu["pi4_ratio"] > 0
