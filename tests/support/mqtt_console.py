"""A console on a real broker, and displays that subscribe to it: the MQTT tests' shared parts.

`running_console(broker)` runs a «Своя игра» console with a simulated MCU on a pseudo-terminal
until the block ends; `display(broker, *topics)` is a subscriber that keeps every payload,
validated against its schema; `command(broker, payload)` sends a host command.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import aiomqtt
import pytest

from console.config import Config
from console.games import config_from_dict
from console.schemas import validate
from console.shell.runtime import Console
from console.sources.mcu import add_mcu
from drivers.sim_mcu import SimulatedMcu
from tests.conftest import Broker, until

__all__ = ["Display", "command", "display", "running_console", "table_config"]


def table_config(port: str, players: int = 3) -> Config:
    return config_from_dict(
        {
            "console": {"node": "t1", "journal": ""},
            "players": [{"id": f"p{i + 1}", "name": f"Игрок {i + 1}", "pad": f"mcu:{i}"}
                        for i in range(players)],
            "sources": {"mcu": {"kind": "serial_mcu", "port": port}},
            "sound": {"enabled": False},
        },
        "test",
    )


class Display:
    """An MQTT subscriber that keeps every payload, validated, per topic."""

    def __init__(self, client: aiomqtt.Client, schemas: Mapping[str, str] | None = None) -> None:
        self.client = client
        self.schemas = schemas or {}  # topic's last part -> schema kind, where not the default
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self.invalid: list[str] = []
        self._arrived = asyncio.Event()

    async def pump(self) -> None:
        async for message in self.client.messages:
            assert isinstance(message.payload, bytes)
            topic = str(message.topic)
            if "/flat/" in topic:  # plain values for show control (tests/test_flat_topics.py)
                continue
            last = topic.rsplit("/", 1)[-1]
            kind = self.schemas.get(last, "event" if last == "events" else last)
            try:
                payload = json.loads(message.payload)
                validate(kind, payload)
            except Exception as exc:  # kept, and raised by wait_for: a pump must not die silently
                self.invalid.append(f"{topic} {message.payload!r}: {exc}")
            else:
                self.seen.append((topic, payload))
            self._arrived.set()

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [p for t, p in self.seen if t.endswith("/events") and (kind is None or p["type"] == kind)]

    async def wait_for(self, check: Callable[[], Any], within: float = 10.0) -> Any:
        async with asyncio.timeout(within):
            while not (result := check()):
                assert not self.invalid, self.invalid
                self._arrived.clear()
                await self._arrived.wait()
            assert not self.invalid, self.invalid
            return result


@asynccontextmanager
async def display(broker: Broker, *topics: str, schemas: Mapping[str, str] | None = None
                  ) -> AsyncIterator[Display]:
    async with aiomqtt.Client(broker.host, broker.port) as client:
        for topic in topics:
            await client.subscribe(topic, qos=1)
        d = Display(client, schemas)
        task = asyncio.create_task(d.pump())
        try:
            yield d
        finally:
            task.cancel()


@asynccontextmanager
async def running_console(broker: Broker, players: int = 3) -> AsyncIterator[tuple[Console, SimulatedMcu]]:
    sim = SimulatedMcu(pads=4)
    sim.start()
    console = Console(table_config(sim.port, players))
    connected = asyncio.Event()
    add_mcu(console.sources, "mcu", sim.port, 115200)
    task = asyncio.create_task(console.run(broker.host, broker.port, on_ready=connected.set))
    try:
        async with asyncio.timeout(5):
            await connected.wait()
        await until(lambda: console.sources.links["mcu"].connected)
        yield console, sim
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        sim.stop()


async def command(broker: Broker, payload: bytes) -> None:
    async with aiomqtt.Client(broker.host, broker.port) as client:
        await client.publish("chgk/t1/host/command", payload, qos=1)
