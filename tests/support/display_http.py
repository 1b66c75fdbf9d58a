"""The display server over raw HTTP: `get` sends a request as written and reads the whole
response; `injected_config` reads back the window.CHGK the server wrote into a page."""

from __future__ import annotations

import asyncio
import json
import re

__all__ = ["get", "injected_config"]


async def get(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    try:
        async with asyncio.timeout(5):
            return await reader.read()
    finally:
        writer.close()


def injected_config(response: bytes) -> dict[str, str]:
    """The window.CHGK the server wrote into a page, read back as JavaScript would."""
    found = re.search(rb"<script>window\.CHGK = (.*?);</script>", response)
    assert found, response[:500]
    config: dict[str, str] = json.loads(found[1])
    return config
