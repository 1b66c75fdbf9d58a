"""Kill -9 mid-fight and start again: `chgk-console run` as a process (as systemd runs it) on a
real mosquitto, its button box / top sensor a simulated MCU on a pty owned by the test (it
outlives the daemon, as the box on the table does). After SIGKILL a new daemon on the same
config resumes from the journal: the same scores and state, the interrupted question or
round voided (console/shell/resume.py), a ``resumed`` event."""

from __future__ import annotations

import io
import json
import signal
from pathlib import Path
from typing import Any

from console.tools.replay import replay_file
from drivers.sim_mcu import SimulatedMcu
from tests.conftest import Broker
from tests.support.mqtt_console import command, display
from tests.support.resume_process import (
    BRAINRING,
    BRAINRING_SCHEMAS,
    SVOYA,
    box_connected,
    daemon,
    events_after,
    online,
    play,
    scores,
    sim,
    state_where,
    write_config,
)

__all__ = ["sim"]  # the simulated box, a fixture of tests/support/resume_process.py

TABLE = ('[game]\nkind = "chgk"\n[sources.top]\nkind = "serial_mcu"\nport = "{port}"\n'
         '[[teams]]\nid = "t1"\nname = "Совы"\n[table]\nteam = "t1"\n')
TABLE_SCHEMAS = {"events": "table_event", "state": "table_state"}


async def test_svoya_killed_mid_question_resumes_with_the_same_scores(
        mosquitto: Broker, tmp_path: Path, sim: SimulatedMcu) -> None:
    """004 IV 4.3: the decisions taken before the crash stand; the question in play when the
    power went is cancelled with no score change and played again (004 App.9, IV 4.4)."""
    config = write_config(tmp_path, mosquitto, SVOYA.format(port=sim.port))
    topics = ("chgk/t1/events", "chgk/t1/state", "chgk/t1/status")
    async with display(mosquitto, *topics) as d:
        async with daemon(config, 1) as first:
            await online(d, 0)
            await d.wait_for(lambda: [e for e in d.events("source_status") if e["state"] == "connected"])
            for pad, verdict in ((0, b"correct"), (1, b"wrong")):
                await play(d, mosquitto, b'{"action": "next"}', lambda p: p["phase"] == "reading")
                await play(d, mosquitto, b'{"action": "reading_finished"}', lambda p: p["phase"] == "open")
                mark = len(d.seen)
                sim.press(pad)
                sim.release(pad)
                await state_where(d, lambda p: p["phase"] == "answering", after=mark)
                judged = b'{"action": "' + verdict + b'"}'
                await play(d, mosquitto, judged, lambda p: p["phase"] != "answering")
            # Боря was wrong and nobody else took it: the host withdraws the question.
            await play(d, mosquitto, b'{"action": "cancel"}', lambda p: p["phase"] == "idle")
            await play(d, mosquitto, b'{"action": "next"}', lambda p: p["phase"] == "reading")
            await play(d, mosquitto, b'{"action": "reading_finished"}', lambda p: p["phase"] == "open")
            mark = len(d.seen)
            sim.press(1)  # Боря has the turn when the power goes
            crashed = await state_where(d, lambda p: p["phase"] == "answering", after=mark)
            assert scores(crashed) == {"p1": 10, "p2": -20}
            first.send_signal(signal.SIGKILL)
            await first.wait()
        mark = len(d.seen)
        async with daemon(config, 2):
            resumed = await d.wait_for(lambda: events_after(d, mark, "resumed"), within=20)
            assert resumed[0]["voided"] == "question" and resumed[0]["torn"] is False
            voided = events_after(d, mark, "question_ended")
            assert voided and voided[0]["reason"] == "cancelled"
            state = await state_where(d, lambda p: p["seq"] >= resumed[0]["seq"], after=mark)
            assert scores(state) == scores(crashed)
            assert state["phase"] == "idle" and state["question"] is None
            assert state["next"] == {**crashed["next"]}  # the interrupted question comes again
            # And the fight goes on: the same question, played to the end.
            await d.wait_for(lambda: [p for t, p in d.seen[mark:] if t.endswith("/events")
                                      and p["type"] == "source_status" and p["state"] == "connected"])
            await play(d, mosquitto, b'{"action": "next"}', lambda p: p["phase"] == "reading")
            await play(d, mosquitto, b'{"action": "reading_finished"}', lambda p: p["phase"] == "open")
            mark = len(d.seen)
            sim.press(0)
            await state_where(d, lambda p: p["phase"] == "answering", after=mark)
            final = await play(d, mosquitto, b'{"action": "correct"}', lambda p: p["phase"] == "idle")
            assert final["last_end"]["reason"] == "correct"
            assert scores(final) == {"p1": 10 + crashed["question"]["value"], "p2": -20}
        assert d.invalid == [], d.invalid
    journals = sorted(p.name for p in (tmp_path / "journal").iterdir() if not p.name.startswith("."))
    assert len(journals) == 1, journals  # the day's one journal, appended to at the restart (no copy)
    replayed = io.StringIO()
    assert replay_file(str(tmp_path / "journal" / journals[0]), replayed, io.StringIO()) == 0
    ends = [e for e in map(json.loads, replayed.getvalue().splitlines()) if e["type"] == "question_ended"]
    assert ends[-1]["scores"] == scores(final)  # the whole evening replays to the same scores


async def test_the_table_killed_mid_round_resumes_at_the_spin(
        mosquitto: Broker, tmp_path: Path, sim: SimulatedMcu) -> None:
    """003 6.1.1: the round in play when the power went is withdrawn (no score, its envelope
    unplayed) and the table goes back to the spin; the rounds before stand."""
    config = write_config(tmp_path, mosquitto, TABLE.format(port=sim.port))
    topics = ("chgk/t1/events", "chgk/t1/state", "chgk/t1/status")
    async with display(mosquitto, *topics, schemas=TABLE_SCHEMAS) as d:
        async with daemon(config, 1) as first:
            await online(d, 0)
            await play(d, mosquitto, b'{"action": "pick_sector", "sector": 3}',
                       lambda p: p["phase"] == "asked")
            await play(d, mosquitto, b'{"action": "early_answer"}', lambda p: p["phase"] == "answer")
            await play(d, mosquitto, b'{"action": "answer_correct"}', lambda p: p["phase"] == "ready")
            await play(d, mosquitto, b'{"action": "pick_sector", "sector": 7}',
                       lambda p: p["phase"] == "asked")
            mark = len(d.seen)
            await command(mosquitto, b'{"action": "start_timer"}')
            crashed = await state_where(d, lambda p: p["phase"] == "discussion", after=mark)
            first.send_signal(signal.SIGKILL)
            await first.wait()
        mark = len(d.seen)
        async with daemon(config, 2):
            resumed = await d.wait_for(lambda: events_after(d, mark, "resumed"), within=20)
            assert resumed[0]["voided"] == "round"
            cancelled = events_after(d, mark, "round_cancelled")
            assert cancelled and cancelled[0]["sector"] == 7
            state = await state_where(d, lambda p: p["seq"] >= resumed[0]["seq"], after=mark)
            assert state["score"] == crashed["score"] == {"team": 1, "club": 0}
            assert state["phase"] == "ready" and state["current"] is None
            assert state["rounds_played"] == crashed["rounds_played"] == 1
            played = {s["sector"]: s["played"] for s in state["sectors"]}
            assert played[3] and not played[7]
        assert d.invalid == [], d.invalid


def team_scores(state: dict[str, Any]) -> dict[str, int]:
    return {t["id"]: t["score"] for t in state["teams"]}


async def test_brainring_killed_mid_count_resumes_with_the_question_voided(
        mosquitto: Broker, tmp_path: Path, sim: SimulatedMcu) -> None:
    """«Брейн-ринг» (../shared/RULES.md §5): the points scored before the crash stand; the
    question whose count ran when the power went is withdrawn and played again under its
    number, its count not known to have been fair."""
    config = write_config(tmp_path, mosquitto, BRAINRING.format(port=sim.port))
    topics = ("chgk/t1/events", "chgk/t1/state", "chgk/t1/status")
    async with display(mosquitto, *topics, schemas=BRAINRING_SCHEMAS) as d:
        async with daemon(config, 1) as first:
            await online(d, 0)
            await box_connected(d)
            await play(d, mosquitto, b'{"action": "next"}', lambda p: p["phase"] == "reading")
            await play(d, mosquitto, b'{"action": "time"}', lambda p: p["phase"] == "counting")
            mark = len(d.seen)
            sim.press(1)
            sim.release(1)
            await state_where(d, lambda p: p["phase"] == "answering", after=mark)
            await play(d, mosquitto, b'{"action": "correct"}', lambda p: p["phase"] == "idle")
            await play(d, mosquitto, b'{"action": "next"}', lambda p: p["phase"] == "reading")
            crashed = await play(d, mosquitto, b'{"action": "time"}', lambda p: p["phase"] == "counting")
            assert team_scores(crashed) == {"t1": 0, "t2": 1} and crashed["question"]["number"] == 2
            first.send_signal(signal.SIGKILL)
            await first.wait()
        mark = len(d.seen)
        async with daemon(config, 2):
            resumed = await d.wait_for(lambda: events_after(d, mark, "resumed"), within=20)
            assert resumed[0]["voided"] == "question"
            assert events_after(d, mark, "question_ended")[0]["reason"] == "cancelled"
            state = await state_where(d, lambda p: p["seq"] >= resumed[0]["seq"], after=mark)
            assert team_scores(state) == {"t1": 0, "t2": 1}
            assert state["phase"] == "idle" and state["next"]["number"] == 2  # played again
            await box_connected(d, mark)
            await play(d, mosquitto, b'{"action": "next"}', lambda p: p["phase"] == "reading")
            await play(d, mosquitto, b'{"action": "time"}', lambda p: p["phase"] == "counting")
            mark = len(d.seen)
            sim.press(0)
            sim.release(0)
            await state_where(d, lambda p: p["phase"] == "answering", after=mark)
            final = await play(d, mosquitto, b'{"action": "correct"}', lambda p: p["phase"] == "idle")
            assert team_scores(final) == {"t1": 1, "t2": 1} and final["last_end"]["question"] == 2
        assert d.invalid == [], d.invalid
