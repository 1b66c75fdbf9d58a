"""The hall's boards for a browser test: `scoreboard(broker)` runs a display server for a
broker's WebSocket listener and gives its «Своя игра» scoreboard's address; `text_of(id)` is the
JavaScript reading an element's text; `table_config` writes the ChGK demo config for a broker."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from console.shell.display_server import DisplayServer
from tests.conftest import Broker
from tests.support.demo import DEMO_CHGK

__all__ = ["scoreboard", "table_config", "text_of"]


def text_of(element_id: str) -> str:
    return f"document.getElementById('{element_id}').textContent"


@asynccontextmanager
async def scoreboard(broker: Broker) -> AsyncIterator[str]:
    assert broker.ws_port is not None
    server = DisplayServer("127.0.0.1", 0, ws_port=broker.ws_port, base="chgk/t1")
    await server.start()
    try:
        yield f"http://127.0.0.1:{server.port}/scoreboard"
    finally:
        await server.close()


def table_config(tmp_path: Path, port: int) -> Path:
    text = DEMO_CHGK.read_text(encoding="utf-8").replace('host = ""', f'host = "127.0.0.1"\nport = {port}')
    (tmp_path / "table.toml").write_text(text.replace('node = "demo"', 'node = "t1"'), encoding="utf-8")
    return tmp_path / "table.toml"
