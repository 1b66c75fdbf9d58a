"""Every game kind as a club runs it: `chgk-console run --config FILE` with its own page.

For each kind in the registry, the daemon runs as a separate process against a real mosquitto
(the hall's pages read over WebSocket), serves its board from its own display server, and a
real headless Chromium shows that board following the game. Idle, the console publishes no
error at all (a button box under the wrong game used to flood "not allowed now" errors), and
its retained status passes schemas/status.schema.json.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from console.games import names
from tests.browser import Browser
from tests.conftest import Broker, free_port
from tests.daemon_process import daemon_process
from tests.support.game_kinds import KINDS
from tests.support.mqtt_console import command, display

ROOT = Path(__file__).resolve().parent.parent


def test_every_registered_game_is_run_here() -> None:
    assert set(KINDS) == set(names())


@asynccontextmanager
async def daemon(broker: Broker, tmp_path: Path, game: str, http_port: int) -> AsyncIterator[None]:
    config = tmp_path / "console.toml"
    config.write_text(
        f'[console]\nnode = "t1"\n{KINDS[game].config}'
        f'[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\nws_port = {broker.ws_port}\n'
        f'[display]\nhttp_port = {http_port}\nbind = "127.0.0.1"\n[sound]\nenabled = false\n',
        encoding="utf-8")
    async with daemon_process(config):
        yield


@pytest.mark.parametrize("game", sorted(KINDS))
async def test_the_game_runs_under_run_with_its_page(mosquitto_ws: Broker, tmp_path: Path, game: str) -> None:
    kind = KINDS[game]
    http_port = free_port()
    topics = ("chgk/t1/events", "chgk/t1/state", "chgk/t1/status")
    async with (display(mosquitto_ws, *topics, schemas=kind.schemas) as d,
                daemon(mosquitto_ws, tmp_path, game, http_port)):
        status = await d.wait_for(lambda: [p for t, p in d.seen if t.endswith("/status")
                                           and p["state"] == "online"], within=15)
        assert status[-1]["game"] == game
        browser = await asyncio.to_thread(Browser, f"http://127.0.0.1:{http_port}/")
        try:
            title = await asyncio.to_thread(browser.wait_for, "document.title")
            assert title.startswith(kind.title)
            link = await asyncio.to_thread(
                browser.wait_for, "document.getElementById('link').textContent === 'на связи'")
            assert link
            await asyncio.sleep(1.0)  # idle: nothing to report
            assert d.events("error") == [], d.events("error")
            await command(mosquitto_ws, kind.command)
            played = await d.wait_for(lambda: d.events(kind.event))
            assert played
            assert await asyncio.to_thread(browser.wait_for, kind.shown)
            assert d.events("error") == [], d.events("error")
            states = [p for t, p in d.seen if t.endswith("/state")]
            assert states and states[-1]["game"] == game
        finally:
            await asyncio.to_thread(browser.close)
        assert d.invalid == [], d.invalid  # every payload passed its schema
    assert json.loads(json.dumps(status[-1]))["state"] == "online"
