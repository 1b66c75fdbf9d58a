"""The display server hands out the host's screen without any password: the page is told where
the broker is and whether it wants a login, and asks the host for the host account itself
(the browser tests, tests/test_host_screen_svoya.py, log in through it)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from console.shell.display_server import DisplayServer
from console.texts import PAGE_TEXTS
from tests.support.display_http import get, injected_config

DATA = Path(__file__).resolve().parent.parent / "console" / "data"


@pytest.mark.parametrize(("username", "login"), [("display", True), ("", False)],
                         ids=["locked-broker", "anonymous-demo"])
async def test_the_host_screen_carries_no_login(username: str, login: bool) -> None:
    server = DisplayServer("127.0.0.1", 0, ws_port=9001, base="chgk/t1",
                           mqtt_username=username, mqtt_password="s3cret-display")
    await server.start()
    try:
        response = await get(server.port, b"GET /host HTTP/1.1\r\nHost: hall.local\r\n\r\n")
        script = await get(server.port, b"GET /host.js HTTP/1.1\r\nHost: x\r\n\r\n")
    finally:
        await server.close()
    assert response.startswith(b"HTTP/1.1 200")
    assert injected_config(response) == {"ws": "ws://hall.local:9001/", "base": "chgk/t1", "game": "",
                                         "login": login, "protocol": False, "texts": PAGE_TEXTS}
    assert b"s3cret-display" not in response  # not even the hall's read-only account
    assert b'<script src="/host.js">' in response
    head, _, body = script.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"Content-Type: text/javascript" in head
    assert body == await asyncio.to_thread((DATA / "host.js").read_bytes)


def fixed_parts(text: object) -> list[str]:
    """Every stretch of a template's words between its placeholders, of every text in `text`."""
    if isinstance(text, dict):
        return [part for value in text.values() for part in fixed_parts(value)]
    return [part.strip() for part in re.split(r"\{\w+\}", str(text)) if len(part.strip()) >= 12]


def test_the_host_screen_says_the_consoles_own_lines_as_the_console_does() -> None:
    """Issue 34: one source for each Russian text. The console's own notices (a device's state,
    a problem, a held button, a hold-up, the journal, a resume) are console/texts.py's
    PAGE_TEXTS, handed to the page; no script of the pages spells one of them again."""
    scripts = "\n".join(path.read_text(encoding="utf-8") for path in DATA.glob("*.js"))
    parts = fixed_parts(PAGE_TEXTS)
    assert len(parts) > 20
    for part in parts:
        assert part not in scripts, part


def test_the_host_screen_is_in_the_page_table() -> None:
    """So `demo` prints its address with the others (tests/test_demo_ports.py)."""
    server = DisplayServer("127.0.0.1", 8080, ws_port=9001, base="chgk/t1")
    assert ("http://tablet.local:8080/host", "host.html") in server.page_addresses("tablet.local")


def test_the_host_screens_core_names_no_game() -> None:
    """Issue 17: host.js is the core every game shares; each game is its own module
    (host-<game>.js, registered with registerGame), so the core never branches on the game."""
    script = "\n".join((DATA / name).read_text(encoding="utf-8")
                       for name in ("host.js", "host-notices.js", "host-dialogs.js", "host-view.js"))
    code = "\n".join(line.split("//")[0] for line in script.splitlines())
    code = code.replace("chgk-host-login", "")  # the product's name in the login's storage key
    for name in ("svoya", "quartet", "chgk", "sports", "game ==="):
        assert name not in code, name


async def test_the_host_screen_loads_the_games_modules_after_the_core() -> None:
    """The display server puts the game's modules (GameKind.host_pages) after host.js and
    serves them; a module it was not given is a 404."""
    server = DisplayServer("127.0.0.1", 0, ws_port=9001, base="chgk/t1",
                           host_pages=("host-svoya.js", "host-quartet.js"))
    await server.start()
    try:
        page = await get(server.port, b"GET /host HTTP/1.1\r\nHost: x\r\n\r\n")
        module = await get(server.port, b"GET /host-quartet.js HTTP/1.1\r\nHost: x\r\n\r\n")
        other = await get(server.port, b"GET /host-chgk.js HTTP/1.1\r\nHost: x\r\n\r\n")
    finally:
        await server.close()
    core, svoya, quartet = (page.index(f'<script src="/{name}">'.encode())
                            for name in ("host.js", "host-svoya.js", "host-quartet.js"))
    assert core < svoya < quartet
    assert module.startswith(b"HTTP/1.1 200") and b'registerGame("quartet"' in module
    assert other.startswith(b"HTTP/1.1 404")


def test_no_evening_reset_sits_in_the_questions_bar() -> None:
    """Issue 34: «Новая игра» / «Новый бой» were one tap from the question's controls in the
    action bar. In every game's module they are in the evening's menu below the page."""
    import re

    resets = {"new_game", "new_fight", "next_fight", "end_game"}
    found = {}
    for module in DATA.glob("host-*.js"):
        text = module.read_text(encoding="utf-8")
        for action, menu in re.findall(r'\{ action: "(\w+)",( menu: true,)?', text):
            if action in resets:
                found[(module.name, action)] = bool(menu)
    assert found and all(found.values()), {k: v for k, v in found.items() if not v}


def test_no_page_or_script_of_the_console_is_over_400_lines() -> None:
    """Issue 34: host.js had grown to 731 lines; the core is split into its parts."""
    long = {path.name: n for path in [*DATA.glob("*.js"), *DATA.glob("*.html")]
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 400}
    assert long == {}
