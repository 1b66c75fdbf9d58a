"""A club's Wi-Fi between a phone's page and the console, on loopback, for `bench phones`.

Contract: `WifiLink(target_port, rng)` is a TCP proxy: `await start()` returns the loopback port
a page connects to (its HTTP page and its WebSocket alike), each connection forwarded to
`target_port`. Every chunk in either direction is held for a delay drawn as a Wi-Fi hop's:
`base_ms` ± `jitter_ms` (uniform), and with probability `spike_p` `spike_ms` more (a late
retransmission); chunks keep their order, as on one TCP connection (a late one holds back
those behind it). `sleep(start_s, seconds)` is the phone's radio in power save: nothing moves
in either direction from `start_s` (the loop's clock) for `seconds`, then all of it at once.
The figures default to ../shared/notes/phones.md's: over half of the hops over 20 ms, a tenth
far more, a sleeping radio 100-1 000 ms.
"""

from __future__ import annotations

import asyncio
import contextlib
import random

__all__ = ["WifiLink"]


class WifiLink:
    """See the module docstring."""

    def __init__(self, target_port: int, rng: random.Random, *, base_ms: float = 20.0,
                 jitter_ms: float = 20.0, spike_p: float = 0.02, spike_ms: float = 200.0) -> None:
        self.target_port = target_port
        self._rng = rng
        self.base_ms, self.jitter_ms, self.spike_p, self.spike_ms = base_ms, jitter_ms, spike_p, spike_ms
        self._sleeps: list[tuple[float, float]] = []  # (from, until) on the loop's clock
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()

    def sleep(self, start_s: float, seconds: float) -> None:
        self._sleeps.append((start_s, start_s + seconds))

    def _delay_s(self) -> float:
        ms = self.base_ms + self._rng.uniform(-self.jitter_ms, self.jitter_ms)
        if self._rng.random() < self.spike_p:
            ms += self.spike_ms
        return max(0.0, ms) / 1000

    def _due(self, sent: float, previous: float) -> float:
        due = max(previous, sent + self._delay_s())
        for start, end in self._sleeps:
            if start <= due < end:  # the radio sleeps: it goes when it wakes
                due = end
        return due

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        for source, sink in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(self._pipe(source, sink))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        held: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        mover = asyncio.create_task(self._deliver(held, sink))
        previous = 0.0
        try:
            while data := await source.read(65536):
                previous = self._due(loop.time(), previous)
                held.put_nowait((previous, data))
            held.put_nowait((previous, b""))  # the end, after what was held
            await mover
        except (ConnectionError, asyncio.CancelledError):
            mover.cancel()
            sink.close()

    @staticmethod
    async def _deliver(held: asyncio.Queue[tuple[float, bytes]], sink: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        with contextlib.suppress(ConnectionError):
            while True:
                due, data = await held.get()
                await asyncio.sleep(max(0.0, due - loop.time()))
                if not data:
                    break
                sink.write(data)
                await sink.drain()
        sink.close()
