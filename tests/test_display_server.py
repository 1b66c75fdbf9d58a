"""The display server under abuse: it never takes what the game needs, and writes nothing a
client sent into its pages."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from console.shell.display_server import MAX_CONNECTIONS, DisplayServer

DATA = Path(__file__).resolve().parent.parent / "console" / "data"


@asynccontextmanager
async def serving() -> AsyncIterator[DisplayServer]:
    server = DisplayServer("127.0.0.1", 0, ws_port=9001, base="chgk/t1")
    await server.start()
    try:
        yield server
    finally:
        await server.close()


async def get(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    try:
        async with asyncio.timeout(5):
            return await reader.read()
    finally:
        writer.close()


async def test_a_flood_of_idle_connections_is_capped() -> None:
    """Connections beyond MAX_CONNECTIONS are closed at once instead of holding descriptors
    (the serial port and the broker need them); once the flood is gone, pages are served."""
    async with serving() as server:
        flood = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(MAX_CONNECTIONS + 20)]
        try:
            closed_at_once = 0
            for reader, _writer in flood[MAX_CONNECTIONS:]:
                async with asyncio.timeout(2):
                    if await reader.read() == b"":
                        closed_at_once += 1
            assert closed_at_once == 20
        finally:
            for _reader, writer in flood:
                writer.close()
        await asyncio.sleep(0.1)
        response = await get(server.port, b"GET / HTTP/1.1\r\nHost: hall.local:8080\r\n\r\n")
        assert response.startswith(b"HTTP/1.1 200")
        assert b'"ws": "ws://hall.local:9001/"' in response


async def test_a_host_header_that_is_not_a_host_is_not_written_into_the_page() -> None:
    async with serving() as server:
        evil = b"GET / HTTP/1.1\r\nHost: x</script><script>alert(1)//\r\n\r\n"
        response = await get(server.port, evil)
        assert response.startswith(b"HTTP/1.1 200")
        assert b"alert(1)" not in response
        assert b'"ws": "ws://127.0.0.1:9001/"' in response
        ipv6 = await get(server.port, b"GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n")
        assert b'"ws": "ws://[::1]:9001/"' in ipv6


def injected_config(response: bytes) -> dict[str, str]:
    """The window.CHGK the server wrote into a page, read back as JavaScript would."""
    found = re.search(rb"<script>window\.CHGK = (.*?);</script>", response)
    assert found, response[:500]
    config: dict[str, str] = json.loads(found[1])
    return config


async def test_the_page_carries_the_display_login_and_a_password_cannot_break_out() -> None:
    """A password is arbitrary text: one holding "</script>" must still reach the page's
    script whole, and never end the script element (which would run the rest as HTML)."""
    password = 'p</script><script>alert(1)//&"\\'
    server = DisplayServer("127.0.0.1", 0, ws_port=9001, base="chgk/t1",
                           mqtt_username="display", mqtt_password=password)
    await server.start()
    try:
        response = await get(server.port, b"GET / HTTP/1.1\r\nHost: hall.local\r\n\r\n")
    finally:
        await server.close()
    assert response.startswith(b"HTTP/1.1 200")
    assert injected_config(response) == {"ws": "ws://hall.local:9001/", "base": "chgk/t1",
                                         "username": "display", "password": password}
    assert b"alert(1)" in response  # it is there, escaped ...
    assert response.count(b"</script>") == response.count(b"<script")  # ... and ends no element
    # Before any script: hall.js reads window.CHGK as it loads.
    assert response.index(b"window.CHGK") < response.index(b'<script src="/vendor/mqtt.min.js">')


async def test_the_pages_scripts_are_served_as_they_are_in_the_package() -> None:
    async with serving() as server:
        for path, file in (("/hall.js", "hall.js"), ("/vendor/mqtt.min.js", "vendor/mqtt.min.js")):
            response = await get(server.port, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            head, _, body = response.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200") and b"Content-Type: text/javascript" in head
            assert body == await asyncio.to_thread((DATA / file).read_bytes)
        for path in ("/mqtt-ws.js", "/vendor/README.md", "/vendor/../hall.js", "/vendor/"):
            response = await get(server.port, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert response.startswith(b"HTTP/1.1 404"), path
