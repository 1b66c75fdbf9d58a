"""`chgk-console run` as a process (as systemd runs it) on a real mosquitto, its button box a
simulated MCU on a pty owned by the test (the `sim` fixture: it outlives the daemon, as the box
on the table does). `write_config` writes a game's config (SVOYA, BRAINRING) for the broker,
`daemon` runs it for a block; on a `Display` of its topics: `online`, `box_connected`,
`state_where`, `events_after`; `play` sends a host command and waits for the state it makes,
`question` plays a question to its end; `scores` reads a state's scores."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from drivers.sim_mcu import SimulatedMcu
from tests.conftest import Broker
from tests.support.mqtt_console import Display, command

__all__ = ["BRAINRING", "BRAINRING_SCHEMAS", "ROOT", "SVOYA", "box_connected", "daemon", "events_after",
           "online", "play", "question", "scores", "sim", "state_where", "write_config"]

ROOT = Path(__file__).resolve().parents[2]
SVOYA = ('[game]\nkind = "svoya"\n[sources.mcu]\nkind = "serial_mcu"\nport = "{port}"\n'
         '[[players]]\nid = "p1"\nname = "Аня"\npad = "mcu:0"\n'
         '[[players]]\nid = "p2"\nname = "Боря"\npad = "mcu:1"\n')
BRAINRING = ('[game]\nkind = "brainring"\n[sources.mcu]\nkind = "serial_mcu"\nport = "{port}"\n'
             '[[brainring.teams]]\nid = "t1"\nname = "Совы"\npads = ["mcu:0"]\n'
             '[[brainring.teams]]\nid = "t2"\nname = "Ежи"\npads = ["mcu:1"]\n')
BRAINRING_SCHEMAS = {"events": "brainring_event", "state": "brainring_state"}


@pytest.fixture
def sim() -> Iterator[SimulatedMcu]:
    mcu = SimulatedMcu(pads=2)
    mcu.start()
    yield mcu
    mcu.stop()


def write_config(tmp_path: Path, broker: Broker, game: str) -> Path:
    config = tmp_path / "console.toml"
    config.write_text(
        f'[console]\nnode = "t1"\njournal = "{tmp_path / "journal" / "journal.jsonl"}"\n{game}'
        f'[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n'
        f'[display]\nhttp_port = 0\n[sound]\nenabled = false\n', encoding="utf-8")
    return config


@asynccontextmanager
async def daemon(config: Path, run: int) -> AsyncIterator[asyncio.subprocess.Process]:
    """The daemon for the body; whatever is left of it is killed after."""
    log_path = config.with_name(f"daemon-{run}.log")
    with log_path.open("wb") as log:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "console.cli", "run", "--config", str(config), cwd=ROOT, stderr=log)
        try:
            yield proc
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()


async def online(d: Display, after: int) -> None:
    """The daemon started after the first `after` messages said it is online."""
    await d.wait_for(lambda: [p for t, p in d.seen[after:]
                              if t.endswith("/status") and p["state"] == "online"], within=20)


def events_after(d: Display, after: int, kind: str) -> list[dict[str, Any]]:
    return [p for t, p in d.seen[after:] if t.endswith("/events") and p["type"] == kind]


async def state_where(d: Display, check: Any, after: int = 0) -> dict[str, Any]:
    found: dict[str, Any] = await d.wait_for(
        lambda: next((p for t, p in d.seen[after:] if t.endswith("/state") and check(p)), None))
    return found


async def play(d: Display, broker: Broker, payload: bytes, check: Any) -> dict[str, Any]:
    """A host command, then the first state after it that passes `check`."""
    mark = len(d.seen)
    await command(broker, payload)
    return await state_where(d, check, after=mark)


async def box_connected(d: Display, after: int = 0) -> None:
    """The button box said it is connected (after the first `after` messages)."""
    await d.wait_for(lambda: [p for t, p in d.seen[after:] if t.endswith("/events")
                              and p["type"] == "source_status" and p["state"] == "connected"])


async def question(d: Display, broker: Broker, sim: SimulatedMcu, pad: int, verdict: bytes = b"correct"
                   ) -> dict[str, Any]:
    """A question played to its end: announced, read, `pad` presses and is judged `verdict`;
    the state once it is over."""
    await play(d, broker, b'{"action": "next"}', lambda p: p["phase"] == "reading")
    await play(d, broker, b'{"action": "reading_finished"}', lambda p: p["phase"] == "open")
    mark = len(d.seen)
    sim.press(pad)
    sim.release(pad)
    await state_where(d, lambda p: p["phase"] == "answering", after=mark)
    return await play(d, broker, b'{"action": "' + verdict + b'"}', lambda p: p["phase"] == "idle")


def scores(state: dict[str, Any]) -> dict[str, int]:
    return {p["id"]: p["score"] for p in state["players"]}
