"""A «Своя игра» console on a simulated MCU over a pseudo-terminal, no broker: the real serial
driver and clock sync, and the wire events the console would publish, collected."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from console.games import config_from_dict
from console.shell.runtime import Console
from drivers.mcu_serial import McuLink
from drivers.sim_mcu import SimulatedMcu
from tests.conftest import linked

__all__ = ["svoya_console"]


@contextlib.asynccontextmanager
async def svoya_console(sim: SimulatedMcu) -> AsyncIterator[tuple[Console, McuLink, list[dict[str, Any]]]]:
    """A «Своя игра» console (two players on pads 0 and 1 of the MCU), no broker: the wire
    events it would publish are collected."""
    config = config_from_dict({
        "console": {"node": "t1", "journal": ""},
        "players": [{"id": f"p{i + 1}", "name": f"Игрок {i + 1}", "pad": f"mcu:{i}"} for i in range(2)],
        "sources": {"mcu": {"kind": "serial_mcu", "port": sim.port}},
        "sound": {"enabled": False},
    }, "test")
    console = Console(config)
    async with linked(console, sim) as (link, events):
        yield console, link, events
