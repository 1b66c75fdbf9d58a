"""Slow clients against the display server (issue 10): a slowloris — many connections that
trickle a byte now and then, or send nothing, and come back when dropped — must not lock a real
page load out, whether it comes from one address or several; a head too long or too slow is
dropped without the server waiting on it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from console.shell import display_server
from console.shell.display_server import MAX_CONNECTIONS, MAX_PER_ADDRESS, MAX_REQUEST, DisplayServer
from tests.conftest import until

# A generous bound on a real request completing under attack; it takes milliseconds.
REAL_LOAD_BOUND_S = 5.0


@asynccontextmanager
async def serving() -> AsyncIterator[DisplayServer]:
    server = DisplayServer("127.0.0.1", 0, ws_port=9001, base="chgk/t1")
    await server.start()
    try:
        yield server
    finally:
        await server.close()


async def slow_client(port: int, address: str, *, trickle: bool) -> None:
    """One slowloris connection, forever: a head started and fed a byte every 0.2 s (or
    nothing at all), never finished; reconnects as soon as the server drops it."""
    while True:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
        except OSError:
            await asyncio.sleep(0.05)
            continue
        try:
            if trickle:
                writer.write(b"GET / HTTP/1.1\r\nX-Slow: ")
            while not reader.at_eof():
                if trickle:
                    writer.write(b"a")
                    await writer.drain()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.2):
                        await reader.read(1)  # b"" once dropped
        except ConnectionError:
            pass
        finally:
            writer.close()
        await asyncio.sleep(0.01)


async def real_get(port: int, address: str, path: str) -> bytes:
    async with asyncio.timeout(REAL_LOAD_BOUND_S):
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
        try:
            writer.write(f"GET {path} HTTP/1.1\r\nHost: hall.local:8080\r\n\r\n".encode())
            return await reader.read()
        finally:
            writer.close()


@pytest.mark.parametrize("addresses", [["127.0.0.1"], ["127.0.0.1", "127.0.0.2", "127.0.0.3",
                                                       "127.0.0.4", "127.0.0.5"]])
async def test_a_slowloris_does_not_lock_a_page_load_out(addresses: list[str]) -> None:
    """64+ slow connections (trickling and silent, reconnecting when dropped), from one loopback
    address or from five (more than the whole table); a page load from the attackers' own
    address and from another still completes: the page and both its scripts."""
    per_address = max(MAX_CONNECTIONS // len(addresses), MAX_PER_ADDRESS) + 4
    async with serving() as server:
        attack = [asyncio.create_task(slow_client(server.port, address, trickle=n % 2 == 0))
                  for address in addresses for n in range(per_address)]
        try:
            full = min(MAX_CONNECTIONS, MAX_PER_ADDRESS * len(addresses))
            await until(lambda: server.connections >= full, within=30)
            for address in ("127.0.0.1", "127.0.0.9"):
                page = await real_get(server.port, address, "/")
                assert page.startswith(b"HTTP/1.1 200"), (address, page[:200])
                assert b'"ws": "ws://hall.local:9001/"' in page
                for script in ("/hall.js", "/vendor/mqtt.min.js"):
                    response = await real_get(server.port, address, script)
                    assert response.startswith(b"HTTP/1.1 200"), (address, script, response[:200])
            assert server.connections <= MAX_CONNECTIONS  # the flood never held more than the table
        finally:
            for task in attack:
                task.cancel()
            await asyncio.gather(*attack, return_exceptions=True)


async def dropped(reader: asyncio.StreamReader) -> bool:
    """True once the server has closed the connection (EOF or reset)."""
    try:
        async with asyncio.timeout(REAL_LOAD_BOUND_S):
            return await reader.read() == b""
    except ConnectionError:
        return True


async def test_a_head_longer_than_max_request_is_dropped_without_waiting(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The stream's buffer limit is MAX_REQUEST: past it, no blank line, the connection goes —
    not after a deadline (made long here so only the size limit can end it)."""
    monkeypatch.setattr(display_server, "HEAD_TIMEOUT_S", 60.0, raising=False)
    monkeypatch.setattr(display_server, "REQUEST_TIMEOUT_S", 60.0)
    async with serving() as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        try:
            writer.write(b"GET / HTTP/1.1\r\nX-Long: " + b"a" * MAX_REQUEST)
            assert await dropped(reader)
        finally:
            writer.close()


async def test_the_head_deadline_is_for_the_whole_head_not_per_byte(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A byte every 0.1 s never lets a per-byte timeout fire; the head's deadline still ends it."""
    monkeypatch.setattr(display_server, "HEAD_TIMEOUT_S", 0.5)
    async with serving() as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        try:
            writer.write(b"GET / HTTP/1.1\r\nX-Slow: ")
            gone = asyncio.create_task(dropped(reader))
            while not gone.done():
                writer.write(b"a")
                await asyncio.sleep(0.1)
            assert gone.result()
        finally:
            writer.close()
