"""Checkpoints (console/shell/checkpoint.py): a resume from the journal's last checkpoint gives
exactly the referee a replay of the whole journal gives, for every game, so a long evening
resumes in the time of its last few minutes; a checkpoint of other code or a damaged one is
never used (the whole journal is replayed instead)."""

from __future__ import annotations

import dataclasses
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
from tests.conftest import Broker
from tests.daemon_process import daemon_process
from tests.support.clock import Clock
from tests.support.mqtt_console import display

ROOT = Path(__file__).resolve().parent.parent
# Each with a calm moment (no deadline pending) for a checkpoint; photo-finish.jsonl has none.
EXAMPLES = ["svoya-basic.jsonl", "late-and-false-start.jsonl", "table-belgorod.jsonl", "sports-timer.jsonl",
            "quartet-indicators.jsonl", "quartet-final-extra-theme.jsonl"]
S = 1_000_000_000


def played_live(example: str, journal: Path) -> tuple[Console, int]:
    """The example's steps through a real Console on a hand clock (its deadlines fired at
    their times, as the loop's timer would), its journal at `journal`."""
    scenario = read_scenario((ROOT / "examples" / example).read_text(encoding="utf-8").splitlines(),
                             example, io.StringIO())
    assert scenario is not None
    clock = Clock(scenario.steps[0].arrive)
    # The journal where the config says, as the daemon has it: its checkpoints are signed with
    # the key beside it (console/shell/checkpoint.py).
    config = dataclasses.replace(scenario.config, console=dataclasses.replace(
        scenario.config.console, journal=str(journal)))
    console = Console(config, clock=clock, journal=journal.open("w", encoding="utf-8"))
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
    key = checkpoint.checkpoint_key(tmp_path / "journal.jsonl", create=True)
    assert checkpoint.read_checkpoint(obj, key) is not None
    assert checkpoint.read_checkpoint({**obj, "code": "another version"}, key) is None
    assert checkpoint.read_checkpoint({**obj, "checkpoint": obj["checkpoint"][:-40]}, key) is None
    assert checkpoint.read_checkpoint({**obj, "checkpoint": "!not base64!"}, key) is None
    assert checkpoint.read_checkpoint(obj, b"another console's key" * 2) is None  # not signed by this one
    assert checkpoint.read_checkpoint({k: v for k, v in obj.items() if k != "sig"}, key) is None
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


class _Payload:
    """What a crafted checkpoint would run when unpickled: it leaves a file behind."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.write_text, (self.marker, "ran"))


def test_a_crafted_checkpoint_never_runs_code(tmp_path: Path) -> None:
    """Issue 31: a journal from elsewhere (`run --resume FILE`) with a checkpoint made to run a
    command when unpickled, its fingerprint computed from the public code: it is not
    unpickled (no signature of this console), the journal is replayed from its lines."""
    import base64
    import pickle

    config = config_from_dict(evening_config(str(tmp_path / "journal.jsonl")), "test")
    journal = tmp_path / "elsewhere" / "journal-20261202-190000.jsonl"
    journal.parent.mkdir()
    record_evening(journal, config, 3)
    lines = journal.read_text(encoding="utf-8").splitlines()
    marker = tmp_path / "pwned"
    blob = base64.b64encode(pickle.dumps(_Payload(marker))).decode("ascii")
    forged = {"checkpoint": blob, "code": checkpoint.code_fingerprint(), "sig": "0" * 64, "at_ms": 1.0,
              "inputs": 0, "own_settings": False}
    unsigned = {k: v for k, v in forged.items() if k != "sig"}
    whole = whole_replay(journal)
    for crafted in (forged, unsigned):
        journal.write_text("\n".join([*lines, json.dumps(crafted)]) + "\n", encoding="utf-8")
        found = resume.load(journal, config, 10**15)
        assert not marker.exists()
        assert isinstance(found, resume.Resumption)
        assert found.engine.snapshot(found.known_until) == whole.referee.snapshot(found.known_until)
    assert oct((tmp_path / checkpoint.KEY_FILE).stat().st_mode & 0o777) == "0o600"


async def test_run_resume_of_a_crafted_journal_runs_no_code(tmp_path: Path, mosquitto: Broker) -> None:
    """Issue 31, as it was reproduced: `chgk-console run --resume FILE` of a journal from
    elsewhere whose checkpoint would run a command when unpickled. The daemon resumes the
    fight from the journal's lines and the command never runs."""
    import base64
    import pickle

    journal_dir = tmp_path / "journal"
    settings = evening_config(str(journal_dir / "journal.jsonl"))
    config_path = tmp_path / "console.toml"
    config_path.write_text(
        f'[console]\nnode = "t1"\njournal = "{journal_dir / "journal.jsonl"}"\n[game]\nseed = 11\n'
        + "".join(f'[[players]]\nid = "{p["id"]}"\nname = "{p["name"]}"\npad = "{p["pad"]}"\n'
                  for p in settings["players"])
        + f'[sources.mcu]\nkind = "simulated_mcu"\npads = 3\n[mqtt]\nhost = "{mosquitto.host}"\n'
        f'port = {mosquitto.port}\n[display]\nhttp_port = 0\n[sound]\nenabled = false\n', encoding="utf-8")
    crafted = tmp_path / "usb" / "journal-20261202-190000.jsonl"
    crafted.parent.mkdir()
    record_evening(crafted, config_from_dict(settings, "test"), 3)
    marker = tmp_path / "pwned"
    blob = base64.b64encode(pickle.dumps(_Payload(marker))).decode("ascii")
    line = {"checkpoint": blob, "code": checkpoint.code_fingerprint(), "sig": "0" * 64, "at_ms": 1.0,
            "inputs": 0, "own_settings": True}
    with crafted.open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")
    async with display(mosquitto, "chgk/t1/events", "chgk/t1/status") as d, \
            daemon_process(config_path, "--resume", str(crafted)):
        await d.wait_for(lambda: d.events("resumed"), within=20)
        assert not marker.exists()
    assert not marker.exists()
