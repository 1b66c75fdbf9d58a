"""The hall's pages log in: a board served by the display server, in a real headless Chromium,
against mosquitto with the shipped lockdown (the `locked` fixture of tests/support/lockdown.py)
and the real console publishing as `console`. With the display account's login from the
config the page is "на связи" and shows the game; with a wrong password, or none, the broker
refuses it and the page says "нет связи" and why.

Also: the vendored MQTT.js bundle is the one console/data/vendor/README.md names.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from console.shell.display_server import DisplayServer
from tests.browser import Browser
from tests.support.lockdown import (  # noqa: F401  (pytest finds fixtures by name)
    BASE,
    LockedBroker,
    locked,
    running_console,
    workdir,
)

ROOT = Path(__file__).resolve().parent.parent
VENDOR = ROOT / "console" / "data" / "vendor"
NAMES = "[...document.querySelectorAll('.player .name')].map(e => e.textContent).join(',')"
LINK = "document.getElementById('link')"


def test_the_vendored_bundle_is_the_one_its_readme_names() -> None:
    readme = (VENDOR / "README.md").read_text(encoding="utf-8")
    recorded = re.search(r"sha256 of mqtt\.min\.js: `([0-9a-f]{64})`", readme)
    assert recorded, readme
    bundle = (VENDOR / "mqtt.min.js").read_bytes()
    assert hashlib.sha256(bundle).hexdigest() == recorded[1]
    # One version everywhere: the README's table, the script's pin, the bundle's own record.
    version = re.search(r"\| mqtt\.min\.js \| .* \| (\d+\.\d+\.\d+) \|", readme)
    assert version, readme
    script = (ROOT / "scripts" / "vendor-mqttjs.sh").read_text(encoding="utf-8")
    assert f'PINNED="{version[1]}"' in script
    assert f'version:"{version[1]}"'.encode() in bundle
    assert "MIT License" in (VENDOR / "LICENSE-mqtt.md").read_text(encoding="utf-8")


@asynccontextmanager
async def board(broker: LockedBroker, username: str, password: str) -> AsyncIterator[Browser]:
    """The «Своя игра» board, served with this login, open in Chromium."""
    server = DisplayServer("127.0.0.1", 0, ws_port=broker.ws_port, base=BASE,
                           mqtt_username=username, mqtt_password=password)
    await server.start()
    try:
        browser = await asyncio.to_thread(Browser, f"http://127.0.0.1:{server.port}/scoreboard")
        try:
            yield browser
        finally:
            await asyncio.to_thread(browser.close)
    finally:
        await server.close()


async def test_a_page_with_the_display_login_shows_the_game(locked: LockedBroker) -> None:  # noqa: F811
    async with running_console(locked, locked.passwords["console"]), \
            board(locked, "display", locked.passwords["display"]) as browser:
        names = await asyncio.to_thread(browser.wait_for, NAMES)
        assert names == "Игрок 1,Игрок 2"  # the retained state, read as `display`
        link = await asyncio.to_thread(browser.wait_for, f"{LINK}.textContent === 'на связи' && 'ok'")
        assert link == "ok"
        assert await asyncio.to_thread(browser.evaluate, f"{LINK}.className") == ""


@pytest.mark.parametrize(("username", "password"), [("display", "wrong"), ("", "")],
                         ids=["wrong-password", "anonymous"])
async def test_a_page_the_broker_refuses_says_it_is_offline(
    locked: LockedBroker, username: str, password: str  # noqa: F811
) -> None:
    async with running_console(locked, locked.passwords["console"]), \
            board(locked, username, password) as browser:
        # The page saw the broker's CONNACK refuse it: not merely "not connected yet".
        reason = await asyncio.to_thread(browser.wait_for, f"{LINK}.dataset.reason")
        assert reason == "login"
        assert await asyncio.to_thread(browser.evaluate, f"{LINK}.textContent") == "нет связи"
        assert await asyncio.to_thread(browser.evaluate, f"{LINK}.className") == "offline"
        assert "логин" in await asyncio.to_thread(browser.evaluate, f"{LINK}.title")
        # It retries by itself and is refused again each time; it never gets the game.
        await asyncio.sleep(1.5)
        assert await asyncio.to_thread(browser.evaluate, NAMES) == ""
        assert await asyncio.to_thread(browser.evaluate, f"{LINK}.dataset.reason") == "login"
