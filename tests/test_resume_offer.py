"""A restart with another config never discards the fight (004 IV 4.3: decisions taken stand):
`chgk-console run` as a process, killed mid-evening and started again with a config that
differs (a player renamed, as a forgotten edit or a forgotten ``--pack`` would). The journal is
left as it is and offered to the host: resume it with its own settings (the console starts
again for it, and a later crash keeps that choice), or start afresh (it is kept aside, never
deleted); a host who just plays on has chosen the fresh game. `run --resume FILE` and
`run --fresh` do the same from a terminal."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from drivers.sim_mcu import SimulatedMcu
from tests.conftest import Broker
from tests.support.mqtt_console import Display, command, display
from tests.support.resume_process import (
    ROOT,
    SVOYA,
    box_connected,
    daemon,
    events_after,
    online,
    play,
    question,
    scores,
    sim,
    state_where,
    write_config,
)

__all__ = ["sim"]  # the simulated box, a fixture of tests/support/resume_process.py
TOPICS = ("chgk/t1/events", "chgk/t1/state", "chgk/t1/status")
RENAMED = SVOYA.replace('name = "Боря"', 'name = "Борис"')


def journals(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in (tmp_path / "journal").iterdir() if not p.name.startswith("."))


async def first_evening(d: Display, broker: Broker, tmp_path: Path, sim: SimulatedMcu) -> dict[str, Any]:
    """The fight so far: Аня took a question; then the power went (kill -9)."""
    config = write_config(tmp_path, broker, SVOYA.format(port=sim.port))
    async with daemon(config, 1) as first:
        await online(d, 0)
        await box_connected(d)
        scored = await question(d, broker, sim, 0)
        first.kill()
        await first.wait()
    assert scores(scored)["p1"] > 0
    return scored


def offers(d: Display, after: int, state: str) -> list[dict[str, Any]]:
    return [e for e in events_after(d, after, "resume_offer") if e["state"] == state]


def last_status(d: Display) -> dict[str, Any]:
    return next(p for t, p in reversed(d.seen) if t.endswith("/status"))


async def test_a_changed_config_offers_the_fight_and_resume_takes_the_journals_own_settings(
        mosquitto: Broker, tmp_path: Path, sim: SimulatedMcu) -> None:
    async with display(mosquitto, *TOPICS) as d:
        scored = await first_evening(d, mosquitto, tmp_path, sim)
        before = journals(tmp_path)
        config = write_config(tmp_path, mosquitto, RENAMED.format(port=sim.port))
        mark = len(d.seen)
        async with daemon(config, 2) as second:
            (offered,) = await d.wait_for(lambda: offers(d, mark, "offered"), within=20)
            assert offered["differs"] == ["players"] and offered["journal"] == before[0]
            await d.wait_for(lambda: last_status(d).get("resume_offer") is not None)
            assert last_status(d)["resume_offer"] == {"journal": before[0], "differs": ["players"]}
            assert [n for n in journals(tmp_path) if not n.endswith(".part")] == before  # nothing renamed
            pid = second.pid
            mark = len(d.seen)
            await command(mosquitto, b'{"action": "resume_journal"}')
            resumed = await d.wait_for(lambda: events_after(d, mark, "resumed"), within=30)
            assert second.returncode is None and second.pid == pid  # the same process, started again
            # The state the started-again console published after it resumed (not the old one's).
            after = next(i for i, (t, p) in enumerate(d.seen) if p is resumed[0])
            state = await state_where(d, lambda p: True, after=after)
            assert scores(state) == scores(scored)
            assert [p["name"] for p in state["players"]] == ["Аня", "Боря"]  # the journal's own
            await d.wait_for(lambda: "resume_offer" not in last_status(d)
                             or last_status(d)["resume_offer"] is None)
            second.kill()
            await second.wait()
        # A crash later that evening: the host's choice stands, nothing is asked again.
        mark = len(d.seen)
        async with daemon(config, 3):
            resumed = await d.wait_for(lambda: events_after(d, mark, "resumed"), within=20)
            state = await state_where(d, lambda p: p["seq"] >= resumed[0]["seq"], after=mark)
            assert scores(state) == scores(scored)
            assert offers(d, mark, "offered") == []


async def test_start_fresh_keeps_the_fight_aside_and_playing_on_chooses_it_too(
        mosquitto: Broker, tmp_path: Path, sim: SimulatedMcu) -> None:
    async with display(mosquitto, *TOPICS) as d:
        await first_evening(d, mosquitto, tmp_path, sim)
        (old,) = journals(tmp_path)
        config = write_config(tmp_path, mosquitto, RENAMED.format(port=sim.port))
        mark = len(d.seen)
        async with daemon(config, 2) as second:
            await d.wait_for(lambda: offers(d, mark, "offered"), within=20)
            await command(mosquitto, b'{"action": "start_fresh"}')
            (declined,) = await d.wait_for(lambda: offers(d, mark, "declined"))
            assert declined["implicit"] is False
            assert declined["journal"] == old.replace(".jsonl", ".not-resumed.jsonl")
            assert old.replace(".jsonl", ".not-resumed.jsonl") in journals(tmp_path)  # kept, never deleted
            state = await play(d, mosquitto, b'{"action": "next"}', lambda p: p["phase"] == "reading")
            assert scores(state) == {"p1": 0, "p2": 0}
            second.kill()
            await second.wait()
        # Started again, and the host just plays on: that is the fresh game chosen.
        kept = tmp_path / "journal" / old.replace(".jsonl", ".not-resumed.jsonl")
        kept.rename(tmp_path / "journal" / old)
        for name in journals(tmp_path):
            if name != old:
                (tmp_path / "journal" / name).unlink()
        mark = len(d.seen)
        async with daemon(config, 3):
            await d.wait_for(lambda: offers(d, mark, "offered"), within=20)
            await command(mosquitto, b'{"action": "next"}')
            (declined,) = await d.wait_for(lambda: offers(d, mark, "declined"))
            assert declined["implicit"] is True


async def test_run_fresh_and_run_resume_from_a_terminal(mosquitto: Broker, tmp_path: Path,
                                                         sim: SimulatedMcu) -> None:
    async with display(mosquitto, *TOPICS) as d:
        scored = await first_evening(d, mosquitto, tmp_path, sim)
        (old,) = journals(tmp_path)
        config = write_config(tmp_path, mosquitto, RENAMED.format(port=sim.port))
        mark = len(d.seen)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "console.cli", "run", "--config", str(config), "--resume",
            str(tmp_path / "journal" / old), cwd=ROOT, stderr=asyncio.subprocess.DEVNULL)
        try:
            resumed = await d.wait_for(lambda: events_after(d, mark, "resumed"), within=20)
            state = await state_where(d, lambda p: p["seq"] >= resumed[0]["seq"], after=mark)
            assert scores(state) == scores(scored)
        finally:
            proc.kill()
            await proc.wait()
        mark = len(d.seen)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "console.cli", "run", "--config", str(config), "--fresh", cwd=ROOT,
            stderr=asyncio.subprocess.DEVNULL)
        try:
            await online(d, mark)
            state = await play(d, mosquitto, b'{"action": "next"}', lambda p: p["phase"] == "reading")
            assert scores(state) == {"p1": 0, "p2": 0} and events_after(d, mark, "resumed") == []
            assert any(".not-resumed" in name for name in journals(tmp_path))
        finally:
            proc.kill()
            await proc.wait()
