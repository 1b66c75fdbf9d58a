"""Checkpoints (console/shell/checkpoint.py): a resume from the journal's last checkpoint gives
exactly the referee a replay of the whole journal gives, for every game, so a long evening
resumes in the time of its last few minutes; a checkpoint of other code or a damaged one is
never used (the whole journal is replayed instead)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import console.shell.runtime as runtime
from bench.resume import evening_config, record_evening
from console.games import config_from_dict
from console.playback import ClockStep, play, read_scenario
from console.shell import checkpoint, resume
from console.shell.runtime import Console

ROOT = Path(__file__).resolve().parent.parent
# Each with a calm moment (no deadline pending) for a checkpoint; photo-finish.jsonl has none.
EXAMPLES = ["svoya-basic.jsonl", "late-and-false-start.jsonl", "table-belgorod.jsonl", "sports-timer.jsonl",
            "quartet-indicators.jsonl", "quartet-final-extra-theme.jsonl"]
S = 1_000_000_000


class Clock:
    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def played_live(example: str, journal: Path) -> tuple[Console, int]:
    """The example's steps through a real Console on a hand clock (its deadlines fired at
    their times, as the loop's timer would), its journal at `journal`."""
    scenario = read_scenario((ROOT / "examples" / example).read_text(encoding="utf-8").splitlines(),
                             example, io.StringIO())
    assert scenario is not None
    clock = Clock(scenario.steps[0].arrive)
    console = Console(scenario.config, clock=clock, journal=journal.open("w", encoding="utf-8"))
    for step in scenario.steps:
        while (due := console.referee.next_deadline()) is not None and due <= step.arrive:
            clock.now = max(clock.now, due)
            console.fire_due(clock.now)
        clock.now = max(clock.now, step.arrive)
        if not isinstance(step, ClockStep):
            console.feed([step.input], now=clock.now)
    console.journal.close()
    return console, clock.now


def whole_replay(journal: Path) -> Any:
    """The referee a replay of every line gives (the checkpoints left out)."""
    lines = [line for line in journal.read_text(encoding="utf-8").splitlines()
             if not checkpoint.is_checkpoint(line)]
    scenario = read_scenario(lines, journal.name, io.StringIO())
    assert scenario is not None
    return play(scenario)


@pytest.mark.parametrize("example", EXAMPLES)
def test_a_resume_from_the_last_checkpoint_is_the_whole_replay(
        example: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "CHECKPOINT_LINES", 3)  # a checkpoint at every calm moment
    journal = tmp_path / "journal.jsonl"
    live, now = played_live(example, journal)
    text = journal.read_text(encoding="utf-8")
    assert sum(checkpoint.is_checkpoint(line) for line in text.splitlines()) >= 1, example
    found = resume.load(journal, live.config, now)
    assert isinstance(found, resume.Resumption)
    whole = whole_replay(journal)
    at = max(found.known_until, whole.now)
    assert comparable(found.engine.snapshot(at)) == comparable(whole.referee.snapshot(at))
    assert comparable(found.engine.host_snapshot(at)) == comparable(whole.referee.host_snapshot(at))
    assert found.engine.next_deadline() == whole.referee.next_deadline()


def comparable(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The snapshot but the top sensor's health: a live table's watchdog runs from the start
    (this test feeds no angles: silent), a replay's from the first sample (playback.py), so
    a checkpoint of the live referee rightly says what the live one knew."""
    top = snapshot.get("top")
    if not isinstance(top, dict):
        return snapshot
    return {**snapshot, "top": {k: v for k, v in top.items() if k != "sensor"}}


def test_a_long_evening_resumes_from_its_last_checkpoint(tmp_path: Path) -> None:
    config = config_from_dict(evening_config(str(tmp_path / "journal.jsonl")), "test")
    journal = tmp_path / "journal-20261202-190000.jsonl"
    record_evening(journal, config, 8)
    lines = journal.read_text(encoding="utf-8").splitlines()
    marks = [i for i, line in enumerate(lines) if checkpoint.is_checkpoint(line)]
    assert len(marks) >= 2  # one every CHECKPOINT_LINES, between questions
    assert len(lines) - marks[-1] - 1 <= runtime.CHECKPOINT_LINES + 1300  # the tail a resume replays
    found = resume.load(journal, config, 10**15)
    assert isinstance(found, resume.Resumption)
    whole = whole_replay(journal)
    assert found.inputs == sum(not isinstance(step, ClockStep) for step in read_scenario(
        lines, journal.name, io.StringIO()).steps)  # type: ignore[union-attr]
    at = found.known_until
    assert found.engine.snapshot(at) == whole.referee.snapshot(at)


def test_a_checkpoint_of_other_code_or_damaged_is_never_used(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    config = config_from_dict(evening_config(str(tmp_path / "journal.jsonl")), "test")
    journal = tmp_path / "journal-20261202-190000.jsonl"
    record_evening(journal, config, 6)
    lines = journal.read_text(encoding="utf-8").splitlines()
    last = max(i for i, line in enumerate(lines) if checkpoint.is_checkpoint(line))
    obj = json.loads(lines[last])
    assert checkpoint.read_checkpoint(obj) is not None
    assert checkpoint.read_checkpoint({**obj, "code": "another version"}) is None
    assert checkpoint.read_checkpoint({**obj, "checkpoint": obj["checkpoint"][:-40]}) is None
    assert checkpoint.read_checkpoint({**obj, "checkpoint": "!not base64!"}) is None
    whole = whole_replay(journal)
    for broken in ({**obj, "code": "another version"}, {**obj, "checkpoint": obj["checkpoint"][:100]}):
        journal.write_text("\n".join([*lines[:last], json.dumps(broken), *lines[last + 1:]]) + "\n",
                           encoding="utf-8")
        found = resume.load(journal, config, 10**15)
        assert isinstance(found, resume.Resumption)
        at = found.known_until
        assert found.engine.snapshot(at) == whole.referee.snapshot(at)  # from an earlier one, or the start
    # And with no usable checkpoint at all (a journal of an older version): the whole journal.
    monkeypatch.setattr(checkpoint, "code_fingerprint", lambda: "this version")
    found = resume.load(journal, config, 10**15)
    assert isinstance(found, resume.Resumption)
    assert found.engine.snapshot(found.known_until) == whole.referee.snapshot(found.known_until)
