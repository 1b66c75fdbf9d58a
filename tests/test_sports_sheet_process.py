"""The sports stage's sheet kept as safely as a fight's score: `chgk-console run` as a process on a
real mosquitto, the jury's edits over MQTT, kill -9 right after the last one was taken, and a
new daemon on the same config has every verdict back (console/shell/resume.py replays the
journal). A malformed jury command is refused naming what was wrong, and changes nothing."""

from __future__ import annotations

import asyncio
import json
import re
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiomqtt

from tests.conftest import Broker
from tests.support.resume_process import daemon

TEAMS = "".join(f'[[sports.teams]]\nname = "Команда {n}"\n' for n in range(1, 9))
BASE = "chgk/t1"


def write_config(tmp_path: Path, broker: Broker) -> Path:
    config = tmp_path / "console.toml"
    config.write_text(
        f'[console]\nnode = "t1"\njournal = "{tmp_path / "journal" / "journal.jsonl"}"\n'
        f'[game]\nkind = "sports"\n[sports]\n{TEAMS}'
        f'[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n'
        f'[display]\nhttp_port = 0\n[sound]\nenabled = false\n', encoding="utf-8")
    return config


class Watcher:
    """Everything the console publishes under the node, newest retained part by topic."""

    def __init__(self, client: aiomqtt.Client) -> None:
        self.client = client
        self.events: list[dict[str, Any]] = []
        self.parts: dict[str, dict[str, Any]] = {}
        self.arrived = asyncio.Event()

    async def pump(self) -> None:
        async for message in self.client.messages:
            assert isinstance(message.payload, bytes)
            topic = str(message.topic).removeprefix(BASE + "/")
            if topic.startswith(("flat/", "jury/")):  # plain values for show control; our own commands
                continue
            payload = json.loads(message.payload)
            if topic in ("events", "host/events"):  # the sheet's changes are the host's
                self.events.append(payload)
            else:
                self.parts[topic] = payload
            self.arrived.set()

    async def until(self, check: Any, within: float = 20.0) -> Any:
        try:
            async with asyncio.timeout(within):
                while not (found := check()):
                    self.arrived.clear()
                    await self.arrived.wait()
                return found
        except TimeoutError:
            raise AssertionError(f"not seen: events {self.events}, parts {sorted(self.parts)}") from None

    async def jury(self, command: dict[str, Any] | bytes) -> None:
        payload = command if isinstance(command, bytes) else json.dumps(command).encode()
        await self.client.publish(f"{BASE}/jury/command", payload, qos=1)


@asynccontextmanager
async def watching(broker: Broker) -> AsyncIterator[Watcher]:
    async with aiomqtt.Client(broker.host, broker.port) as client:
        await client.subscribe(f"{BASE}/#", qos=1)
        watcher = Watcher(client)
        task = asyncio.create_task(watcher.pump())
        try:
            yield watcher
        finally:
            task.cancel()


def online(w: Watcher) -> bool:
    return w.parts.get("status", {}).get("state") == "online"


async def test_killed_right_after_a_verdict_the_sheet_resumes(tmp_path: Path, mosquitto: Broker) -> None:
    config = write_config(tmp_path, mosquitto)
    edits: list[dict[str, Any]] = [
        {"action": "set_question", "question": 1, "teams": [1, 2, 3]},
        {"action": "set_team", "team": 4, "tour": 1, "mask": "1?0000000001"},
        {"action": "set_cell", "team": 5, "question": 2, "verdict": "1", "answer": "Гагарин"},
        {"action": "add_team", "name": "Опоздавшие", "town": "Курск"},
        {"action": "remove_question", "question": 12, "why": "некорректный"},
    ]
    async with watching(mosquitto) as w:
        async with daemon(config, 1) as first:
            await w.until(lambda: online(w))
            for edit in edits:
                await w.jury(edit)
            taken = await w.until(lambda: [e for e in w.events if e["type"] == "sheet_changed"][4:])
            first.send_signal(signal.SIGKILL)  # right after the last verdict was taken
            await first.wait()
        assert taken[0]["revision"] == 5  # the fifth edit taken, then the kill
        w.parts.clear()
        async with daemon(config, 2):
            await w.until(lambda: online(w) and {"sheet/jury", "sheet/teams", "sheet/q/2"} <= set(w.parts))
            after = w.parts["sheet/jury"]
            assert after["revision"] == 5  # each of the five, replayed from the journal
            totals = {row[0]: row[1] for row in after["standings"]}
            # 1-3: question 1; 4: its mask's 1st (its 12th removed, its 2nd disputed); 5: question 2
            assert totals == {1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 0, 7: 0, 8: 0, 9: 0}
            assert after["disputed"] == 1 and after["removed"] == {"12": "некорректный"}
            assert [t["name"] for t in w.parts["sheet/teams"]["teams"]][-1] == "Опоздавшие"
            # who, when (the console's clock when it took it, replayed from the journal) and why
            last = (await w.until(lambda: "sheet/log" in w.parts and w.parts["sheet/log"]))["log"][-1]
            assert last["why"] == "некорректный" and last["by"] == "jury"
            assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", last["when"])
            cells = {cell[0]: cell[1:] for cell in w.parts["sheet/q/2"]["cells"]}
            assert cells == {4: ["?", "", "0"], 5: ["1", "Гагарин"]}


async def test_a_malformed_jury_command_is_refused_naming_it(tmp_path: Path, mosquitto: Broker) -> None:
    config = write_config(tmp_path, mosquitto)
    async with watching(mosquitto) as w, daemon(config, 1):
        await w.until(lambda: online(w) and "sheet/jury" in w.parts)
        await w.jury(b"{not json")
        await w.jury({"action": "set_cell", "team": 1, "question": 1, "verdict": "maybe"})
        await w.jury({"action": "ask_the_audience"})
        await w.jury({"action": "set_cell", "team": 99, "question": 1, "verdict": "1"})
        await w.until(lambda: [e for e in w.events if e["type"] == "error"][3:])
        errors = [e for e in w.events if e["type"] == "error"]
        assert errors[0]["source"] == "jury" and "bad jury command '{not json'" in errors[0]["message"]
        assert "verdict must be 1, 0 or ?" in errors[1]["message"]
        assert "unknown sheet action 'ask_the_audience'" in errors[2]["message"]
        assert "нет команды с номером 99" in errors[3]["message"]
        assert w.parts["sheet/jury"]["revision"] == 0
