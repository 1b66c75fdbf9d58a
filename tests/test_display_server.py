"""The display server under abuse: it never takes what the game needs, and writes nothing a
client sent into its pages."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from console.shell.display_server import MAX_CONNECTIONS, MAX_PER_ADDRESS, DisplayServer
from tests.support.display_http import get, injected_config

DATA = Path(__file__).resolve().parent.parent / "console" / "data"


@asynccontextmanager
async def serving() -> AsyncIterator[DisplayServer]:
    server = DisplayServer("127.0.0.1", 0, ws_port=9001, base="chgk/t1")
    await server.start()
    try:
        yield server
    finally:
        await server.close()


async def open_from(port: int, address: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))


async def closed_by_server(reader: asyncio.StreamReader) -> bool:
    try:
        async with asyncio.timeout(2):
            return await reader.read() == b""
    except ConnectionError:
        return True


async def test_a_flood_of_idle_connections_from_one_address_is_capped() -> None:
    """One address holds at most MAX_PER_ADDRESS connections: each newcomer beyond that drops
    the address's oldest connection still silent, so descriptors stay bounded (the serial port
    and the broker need them) and the newest — a browser's — is the one kept and answered."""
    async with serving() as server:
        flood = [await open_from(server.port, "127.0.0.1") for _ in range(MAX_PER_ADDRESS + 20)]
        try:
            for reader, _writer in flood[:20]:
                assert await closed_by_server(reader)
            assert server.connections == MAX_PER_ADDRESS
            reader, writer = flood[-1]
            writer.write(b"GET / HTTP/1.1\r\nHost: hall.local:8080\r\n\r\n")
            async with asyncio.timeout(5):
                response = await reader.read()
            assert response.startswith(b"HTTP/1.1 200")
            assert b'"ws": "ws://hall.local:9001/"' in response
        finally:
            for _reader, writer in flood:
                writer.close()


async def test_a_flood_from_many_addresses_is_capped_at_the_table() -> None:
    """Beyond MAX_CONNECTIONS in all, the oldest silent connection goes, whoever holds it."""
    addresses = [f"127.0.0.{n}" for n in range(2, 2 + MAX_CONNECTIONS // MAX_PER_ADDRESS + 1)]
    async with serving() as server:
        flood = [await open_from(server.port, address)
                 for address in addresses for _ in range(MAX_PER_ADDRESS)]
        extra = len(flood) - MAX_CONNECTIONS
        assert extra > 0
        try:
            for reader, _writer in flood[:extra]:
                assert await closed_by_server(reader)
            assert server.connections == MAX_CONNECTIONS
        finally:
            for _reader, writer in flood:
                writer.close()
        response = await get(server.port, b"GET / HTTP/1.1\r\nHost: hall.local:8080\r\n\r\n")
        assert response.startswith(b"HTTP/1.1 200")


async def test_a_host_header_that_is_not_a_host_is_not_written_into_the_page() -> None:
    async with serving() as server:
        evil = b"GET / HTTP/1.1\r\nHost: x</script><script>alert(1)//\r\n\r\n"
        response = await get(server.port, evil)
        assert response.startswith(b"HTTP/1.1 200")
        assert b"alert(1)" not in response
        assert b'"ws": "ws://127.0.0.1:9001/"' in response
        ipv6 = await get(server.port, b"GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n")
        assert b'"ws": "ws://[::1]:9001/"' in ipv6


async def test_the_page_carries_the_display_login_and_a_password_cannot_break_out() -> None:
    """A password is arbitrary text: one holding "</script>" must still reach the page's
    script whole, and never end the script element (which would run the rest as HTML)."""
    password = 'p</script><script>alert(1)//&"\\'
    server = DisplayServer("127.0.0.1", 0, ws_port=9001, base="chgk/t1",
                           mqtt_username="display", mqtt_password=password, game="svoya")
    await server.start()
    try:
        response = await get(server.port, b"GET / HTTP/1.1\r\nHost: hall.local\r\n\r\n")
    finally:
        await server.close()
    assert response.startswith(b"HTTP/1.1 200")
    assert injected_config(response) == {"ws": "ws://hall.local:9001/", "base": "chgk/t1", "game": "svoya",
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


async def test_every_page_links_the_consoles_icon_and_it_is_served() -> None:
    """Issue 34: the pages asked for a favicon that was not there (a 404 in every browser's
    console). Each page links the console's icon; it and /favicon.ico are served."""
    async with serving() as server:
        for path in server.pages:
            response = await get(server.port, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert response.startswith(b"HTTP/1.1 200"), path
            assert b'<link rel="icon" href="/favicon.svg" type="image/svg+xml">' in response, path
        for path in ("/favicon.svg", "/favicon.ico"):
            response = await get(server.port, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            head, _, body = response.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200") and b"Content-Type: image/svg+xml" in head, path
            assert body == await asyncio.to_thread((DATA / "favicon.svg").read_bytes)


async def test_the_pages_are_served_while_their_files_are_replaced(tmp_path: Path) -> None:
    """Issue 34: the README's second command (a reinstall) run beside the first's demo removed
    the page files the demo served: `/scoreboard` answered nothing and the terminal filled with
    FileNotFoundError. The server reads its pages once, at start."""
    import shutil

    data = tmp_path / "data"
    await asyncio.to_thread(shutil.copytree, DATA, data)
    server = DisplayServer("127.0.0.1", 0, ws_port=9001, base="chgk/t1", data=data)
    await server.start()
    try:
        await asyncio.to_thread(shutil.rmtree, data)  # the package's files, mid-reinstall
        for path in ("/scoreboard", "/host", "/hall.js", "/vendor/mqtt.min.js", "/favicon.svg"):
            response = await get(server.port, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert response.startswith(b"HTTP/1.1 200"), path
    finally:
        await server.close()
