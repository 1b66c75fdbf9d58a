"""Fault: the power goes mid-fight (issue 8). `chgk-console run` as a process on a real
mosquitto and a simulated button box on a test-owned pty (tests/support/resume_process.py's rig);
the power cut is a SIGKILL and what a disk holds after one: the journal's last line cut off
mid-write (the console syncs after each decision, so what a cut loses is the line being
written). The next start resumes from the rest: the same scores, the question that was in play
voided and due again (004 IV 4.3-4.4, App.9), the torn line reported on the events topic
(source "resume_partial": the journal is being written, unlike what "journal" says) and in the
``resumed`` event."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from console.engine.model import Press
from console.games import game
from console.scenario import parse_step, step_to_json
from drivers.sim_mcu import SimulatedMcu
from tests.conftest import Broker
from tests.support.mqtt_console import display
from tests.support.resume_process import (
    SVOYA,
    daemon,
    events_after,
    online,
    play,
    scores,
    state_where,
    write_config,
)


@pytest.fixture
def sim() -> Iterator[SimulatedMcu]:
    mcu = SimulatedMcu(pads=2)
    mcu.start()
    yield mcu
    mcu.stop()


def cut_last_line(journal: Path) -> str:
    """Leave the journal as a power cut mid-write does: its last line without its second half
    and without its newline. Returns the part left."""
    data = journal.read_bytes()
    start = data.rstrip(b"\n").rfind(b"\n") + 1
    line = data[start:].rstrip(b"\n")
    kept = line[:len(line) // 2]
    journal.write_bytes(data[:start] + kept)
    return kept.decode("utf-8", errors="replace")


async def test_a_power_cut_mid_question_resumes_from_the_journal_left_on_disk(
        mosquitto: Broker, tmp_path: Path, sim: SimulatedMcu) -> None:
    config = write_config(tmp_path, mosquitto, SVOYA.format(port=sim.port))
    topics = ("chgk/t1/events", "chgk/t1/state", "chgk/t1/status")
    async with display(mosquitto, *topics) as d:
        async with daemon(config, 1) as first:
            await online(d, 0)
            await d.wait_for(lambda: [e for e in d.events("source_status") if e["state"] == "connected"])
            await play(d, mosquitto, b'{"action": "next"}', lambda p: p["phase"] == "reading")
            await play(d, mosquitto, b'{"action": "reading_finished"}', lambda p: p["phase"] == "open")
            mark = len(d.seen)
            sim.press(0)
            sim.release(0)
            await state_where(d, lambda p: p["phase"] == "answering", after=mark)
            await play(d, mosquitto, b'{"action": "correct"}', lambda p: p["phase"] == "idle")
            await play(d, mosquitto, b'{"action": "next"}', lambda p: p["phase"] == "reading")
            await play(d, mosquitto, b'{"action": "reading_finished"}', lambda p: p["phase"] == "open")
            mark = len(d.seen)
            sim.press(1)  # Боря has the turn when the power goes
            crashed = await state_where(d, lambda p: p["phase"] == "answering", after=mark)
            assert scores(crashed) == {"p1": 10, "p2": 0}
            first.send_signal(signal.SIGKILL)
            await first.wait()
        [journal] = (tmp_path / "journal").glob("journal-*.jsonl")
        torn = cut_last_line(journal)
        mark = len(d.seen)
        async with daemon(config, 2):
            resumed = await d.wait_for(lambda: events_after(d, mark, "resumed"), within=20)
            assert resumed[0]["torn"] is True and resumed[0]["voided"] == "question"
            errors = [e for e in events_after(d, mark, "error") if e["source"] == "resume_partial"]
            assert len(errors) == 1 and "was torn" in errors[0]["message"], [e["message"] for e in errors]
            assert torn[:40] in errors[0]["message"]
            state = await state_where(d, lambda p: p["seq"] >= resumed[0]["seq"], after=mark)
            assert scores(state) == scores(crashed)
            assert state["phase"] == "idle" and state["next"] == crashed["next"]
            # The fight goes on from there: the same question, answered.
            await d.wait_for(lambda: [e for e in events_after(d, mark, "source_status")
                                      if e["state"] == "connected"])
            await play(d, mosquitto, b'{"action": "next"}', lambda p: p["phase"] == "reading")
            await play(d, mosquitto, b'{"action": "reading_finished"}', lambda p: p["phase"] == "open")
            mark = len(d.seen)
            sim.press(1)
            await state_where(d, lambda p: p["phase"] == "answering", after=mark)
            final = await play(d, mosquitto, b'{"action": "correct"}', lambda p: p["phase"] == "idle")
            assert scores(final) == {"p1": 10, "p2": crashed["question"]["value"]}
        assert d.invalid == [], d.invalid


def test_a_press_mapped_just_after_its_arrival_is_read_back_from_the_journal() -> None:
    """What the console writes, resume must read: a press the box stamped 0.3 ms after the
    console received it (by the mapping, within its error) is a real press of the fight."""
    press = Press("mcu", "mcu:0", 1_000_300_000)
    line = json.dumps(step_to_json(press, 1_000_000_000, game("svoya")))
    step = parse_step(line, "journal.jsonl:2", game("svoya"))
    assert step.input == press
