"""Serves the display pages to the hall's screens and tablets, over HTTP.

Contract: `DisplayServer(bind, port, ws_port=..., base=..., board=..., mqtt_username=...,
mqtt_password=...)` answers `GET /` and `GET /scoreboard` with the hall's board of the game (a
page in console/data), told where the broker's WebSocket listener is (the host the browser used
to reach this server, port `ws_port`), which topics to read (`base`) and the display account's
login (empty: anonymous, which only a demo broker takes); `GET /hall.js` and
`GET /vendor/mqtt.min.js` with the pages' shared script and their MQTT client (MQTT.js,
console/data/vendor/README.md); anything else is a 404. A few small static files: a plain
asyncio server, not a web framework.

The display account's password is in every page this server hands out: anyone who can load a
board can read it. That is the account's design (config/mosquitto/acl): it reads the public
topics and nothing else, so it gives nothing a board does not show.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from importlib import resources

log = logging.getLogger("chgk.display")

# Path -> file under console/data; nothing else is ever read from disk.
SCRIPTS = {"/hall.js": "hall.js", "/vendor/mqtt.min.js": "vendor/mqtt.min.js"}
MAX_REQUEST = 8192  # a display's GET is a few hundred bytes; anything bigger is not one
# A hall has a handful of screens. Beyond this many connections at once the server closes new
# ones at once: a flood of them must never take the file descriptors the game needs (the
# serial port, the broker).
MAX_CONNECTIONS = 64
REQUEST_TIMEOUT_S = 5.0
# A browser's Host header: a name, an IPv4 or a bracketed IPv6 address, maybe a port. The host
# is written into the page, so nothing else is taken.
_HOST_HEADER = re.compile(r"(?P<host>[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]+)?")


class DisplayServer:
    def __init__(self, bind: str, port: int, *, ws_port: int, base: str,
                 board: str = "scoreboard.html", mqtt_username: str = "",
                 mqtt_password: str = "") -> None:
        self.bind, self.port, self.ws_port, self.base = bind, port, ws_port, base
        self.mqtt_username, self.mqtt_password = mqtt_username, mqtt_password
        # The hall's board for the game played here (its GameKind's board): «Своя игра» scores,
        # the ChGK table, the sports timer.
        self.pages = {"/": board, "/scoreboard": board}
        self._server: asyncio.Server | None = None
        self._connections = 0

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, self.bind, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("displays: http://%s:%d/scoreboard", self.bind, self.port)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def page(self, name: str, host: str) -> bytes:
        """The page, told where the broker is as seen from the browser's side."""
        html = (resources.files("console") / "data" / name).read_text(encoding="utf-8")
        config = json.dumps({"ws": f"ws://{host}:{self.ws_port}/", "base": self.base,
                             "username": self.mqtt_username, "password": self.mqtt_password})
        # Inside <script> only "</script" ends the element, and a password may hold anything:
        # JSON's \u escapes keep every "<", ">" and "&" out of the HTML's sight.
        config = config.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        # Before the first script, so hall.js finds window.CHGK whenever it looks.
        at = html.index("<script")
        return (html[:at] + f"<script>window.CHGK = {config};</script>\n" + html[at:]).encode()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._connections >= MAX_CONNECTIONS:
            writer.close()
            return
        self._connections += 1
        try:
            await self._answer(reader, writer)
        except (ConnectionError, TimeoutError):
            pass  # the browser went away, or does not read its answer: nothing more to do
        finally:
            self._connections -= 1
            writer.close()

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(REQUEST_TIMEOUT_S):  # not wait_for: it can swallow a cancellation
                head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            return
        request, *header_lines = head[:MAX_REQUEST].decode("latin-1").split("\r\n")
        method, _, rest = request.partition(" ")
        path = rest.split(" ", 1)[0].split("?", 1)[0]
        headers = {name.strip().lower(): value.strip()
                   for name, _, value in (line.partition(":") for line in header_lines)}
        host_header = _HOST_HEADER.fullmatch(headers.get("host", ""))
        host = host_header["host"] if host_header else "127.0.0.1"
        if method == "GET" and path in self.pages:
            status, body, kind = "200 OK", self.page(self.pages[path], host), "text/html"
        elif method == "GET" and path in SCRIPTS:
            script = (resources.files("console") / "data" / SCRIPTS[path]).read_bytes()
            status, body, kind = "200 OK", script, "text/javascript"
        else:
            status, body, kind = "404 Not Found", "нет такой страницы\n".encode(), "text/plain"
        writer.write(f"HTTP/1.1 {status}\r\nContent-Type: {kind}; charset=utf-8\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        async with asyncio.timeout(REQUEST_TIMEOUT_S):  # a reader that never reads is let go
            await writer.drain()
