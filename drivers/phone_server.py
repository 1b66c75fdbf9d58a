"""Phones as buttons (issue 35): the phones' WebSocket and their page, on a port of their own.

Contract: `PhoneServer(seats, bind=..., port=..., files=..., clock=..., on_output=...,
on_listening=..., on_error=...)` is a local input of the console (`start(loop)`, `close()`)
and a lamp output (`set_lamps(on, blink)`), saying `on_listening(port)` once it listens; `free(index)` is the
host freeing a seat. It
serves `files` (path -> (content type, bytes): the phone's page and script) over plain HTTP
and takes WebSocket connections on ``/ws``. Each text message is a JSON object handed to the
pure `PhoneSeats` (drivers/phone_seats.py) with the console's clock read right after it was
read; what the seats say back is sent to the phones and the rest (`SeatsOutput`) handed to
`on_output`; every HEALTH_S each joined phone's clock goes to `on_health`. The seats' timer
(their sync requests, a silent phone) runs on the loop.

What a phone cannot do: send more than `MAX_MESSAGE_BYTES` in one message (the connection is
closed), more than `MAX_RATE` messages a second (closed, and said: a flooding page costs the
others nothing but its own seat), or anything but the seats' messages (a problem is said,
nothing else happens). Nothing it sends reaches the host's commands: this server knows only
the seats.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Mapping
from http import HTTPStatus

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from drivers.phone_seats import PhoneSeats, SeatsOutput

__all__ = ["MAX_RATE", "PhoneServer"]

log = logging.getLogger("chgk.phones")

MAX_MESSAGE_BYTES = 1024  # a page's messages are tens of bytes
MAX_RATE = 100  # messages a second from one phone: its heartbeats are 12.5, a press a few more
WS_PATH = "/ws"
HEALTH_S = 2.0  # how often the phones' clocks are shown anew
HELD_NS = 20_000_000  # a timer this late means the console itself was held up (as deadlines.HOLD_NS)
CATCH_UP_S = 0.05  # then the loop reads what waited on the sockets before the seats are judged


class PhoneServer:
    """See the module docstring."""

    def __init__(self, seats: PhoneSeats, *, bind: str, port: int, files: Mapping[str, tuple[str, bytes]],
                 clock: Callable[[], int], on_output: Callable[[SeatsOutput], None],
                 on_listening: Callable[[int], None], on_error: Callable[[str], None],
                 on_health: Callable[[list[dict[str, object]]], None] = lambda rows: None) -> None:
        self.seats = seats
        self.bind, self.port = bind, port
        self._files = dict(files)
        self._clock = clock
        self._on_output, self._on_listening, self._on_error = on_output, on_listening, on_error
        self._on_health = on_health
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: Server | None = None
        self._task: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._due: int | None = None  # when the timer is due (console ns)
        self._sends: set[asyncio.Task[None]] = set()
        self.started = asyncio.Event()

    # ------------------------------------------------------------------ the console's side

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._task = loop.create_task(self._serve(), name="phones")

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._server is not None:
            self._server.close()
        if self._task is not None:
            self._task.cancel()

    def set_lamps(self, on: int, blink: int) -> None:
        self._apply(self.seats.lamps(on, blink))

    def free(self, index: int) -> None:
        """The host frees seat `index` (0-based): its phone is let go, its clocks shown anew."""
        now = self._clock()
        self._apply(self.seats.leave(index, now))
        self._on_health(self.seats.health(now))

    # ------------------------------------------------------------------ inside

    async def _serve(self) -> None:
        try:
            # No per-message deflate: a phone's messages are a few dozen bytes, and inflating
            # each one cost the console more than reading it.
            async with serve(self._connection, self.bind, self.port, process_request=self._http,
                             max_size=MAX_MESSAGE_BYTES, close_timeout=1, compression=None) as server:
                self._server = server
                self.port = next(iter(server.sockets)).getsockname()[1]
                log.info("phones: the page on http://%s:%d/ , join code %s",
                         self.bind, self.port, self.seats.code)
                self.started.set()
                self._on_listening(self.port)
                self._arm()
                await self._health()  # until the console closes: `serve` then closes each page
        except OSError as exc:
            self._on_error(f"phones: cannot listen on {self.bind}:{self.port}: {exc.strerror or exc}")

    async def _health(self) -> None:
        """Each phone's clock for the host's screen, every HEALTH_S while anyone has joined
        (until cancelled)."""
        shown: list[dict[str, object]] | None = None
        while True:
            await asyncio.sleep(HEALTH_S)
            self._apply(self.seats.tell_owners())
            rows = self.seats.health(self._clock())
            if rows or shown:
                self._on_health(rows)
            shown = rows

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        """The page and its script over plain HTTP; a WebSocket only on WS_PATH."""
        path = request.path.partition("?")[0]
        if path == WS_PATH:
            return None
        found = self._files.get(path)
        if found is None:
            return connection.respond(HTTPStatus.NOT_FOUND, "Нет такой страницы.\n")
        content_type, body = found
        headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))),
                           ("Cache-Control", "no-store"), ("Connection", "close")])
        return Response(HTTPStatus.OK, "OK", headers, body)

    async def _connection(self, ws: ServerConnection) -> None:
        window_start, count = self._clock(), 0
        try:
            async for raw in ws:
                now = self._clock()  # read right after the message: the sync's receive end
                if now - window_start >= 1_000_000_000:
                    window_start, count = now, 0
                count += 1
                if count > MAX_RATE:
                    self._on_error(f"phones: a page sent more than {MAX_RATE} messages a second; let go")
                    await ws.close(1008, "too many messages")
                    break
                message = _parse(raw)
                if isinstance(message, str):
                    self._on_error(f"phones: {message}")
                    continue
                out = self.seats.receive(ws, message, now)
                # A heartbeat only moves the seats' deadlines later (its phone was heard), unless
                # it changed the source's state: the timer armed before it may fire early, then
                # re-arms. Not re-arming here saves the seats' scan on most messages.
                self._apply(out, arm=message.get("type") != "hb" or out.state is not None)
        except ConnectionClosed:
            pass
        finally:
            self._apply(self.seats.closed(ws, self._clock()))

    def _apply(self, out: SeatsOutput, *, arm: bool = True) -> None:
        for conn, message in out.sends:
            if isinstance(conn, ServerConnection):
                task = asyncio.ensure_future(_send(conn, json.dumps(message, ensure_ascii=False)))
                self._sends.add(task)
                task.add_done_callback(self._sends.discard)
        if out.presses or out.mark_ns is not None or out.state is not None or out.problems:
            self._on_output(out)
        if arm:
            self._arm()

    def _arm(self) -> None:
        if self._loop is None or not self.started.is_set():
            return
        if self._timer is not None:
            self._timer.cancel()
        due = self._due = self.seats.next_deadline()
        if due is not None:
            self._timer = self._loop.call_later(max(0.0, (due - self._clock()) / 1e9), self._tick)

    def _tick(self) -> None:
        self._timer = None
        now = self._clock()
        if self._due is not None and now - self._due > HELD_NS and self._loop is not None:
            # The console itself was held up (a stall): what the phones sent meanwhile waits
            # unread on their sockets. It is read first, or a phone would be called silent for
            # the console's own pause.
            self._due = None
            self._timer = self._loop.call_later(CATCH_UP_S, self._tick)
            return
        self._apply(self.seats.on_timer(now))


async def _send(conn: ServerConnection, text: str) -> None:
    with contextlib.suppress(ConnectionClosed):  # gone: its seat hears of it from the connection's end
        await conn.send(text)


def _parse(raw: str | bytes) -> dict[str, object] | str:
    """A phone's message as a JSON object, or what was wrong with it."""
    if isinstance(raw, bytes):
        return "a binary message (the page sends JSON text)"
    try:
        message = json.loads(raw)
    except ValueError as exc:
        return f"a message that is not JSON ({exc})"
    if not isinstance(message, dict):
        return f"a message that is not a JSON object: {raw[:80]!r}"
    return message
