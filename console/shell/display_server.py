"""Serves the display pages to the hall's screens and tablets, over HTTP.

Contract: `DisplayServer(bind, port, ws_port=..., base=..., board=..., host_pages=...,
scripts=..., mqtt_username=..., mqtt_password=...)` answers `GET /` and `GET /scoreboard`
with the hall's board of the game (a page in console/data), told where the broker's WebSocket
listener is (the host the browser used to reach this server, port `ws_port`), which topics
to read (`base`) and the display account's login (empty: anonymous, which only a demo broker
takes); `GET /overlay` with a stream's transparent overlay (console/data/overlay.html: the
scores and the count, for OBS), told the same; `GET /host` with the host's screen
(console/data/host.html, docs/host-screen.md), which is told where the broker is and whether
the broker wants a login, but never any password (the host types the host account's password
into the page once; the browser keeps it), which loads the game's modules of the host's
screen (`host_pages`: the GameKind's, after host.js); `GET /hall.js`, `GET /host.js`,
`GET /vendor/mqtt.min.js` and `GET /<each of host_pages and scripts>` with the pages' scripts
and their MQTT client (MQTT.js, console/data/vendor/README.md); with a `protocol` (the live
journal's, console/shell/protocol_export.py) `GET /protocol`, `/protocol.csv` and
`/protocol.json` with the fight's protocol (a 503 saying why when it cannot be built), and the
host's screen is told it has one; with `media` (the pack's, console/shell/hall_media.py)
`GET /media/<name>` with the picture, sound or video the hall is shown now, for the hall's
boards (no other file of the pack: a 404), streamed in chunks to at most MAX_MEDIA_STREAMS
readers at once and sandboxed (MEDIA_HEADERS: a pack's SVG runs no script in this origin);
anything else is a 404. One request per connection (`Connection: close`).

Limits, all enforced before the bytes are read:
- A request head (request line and headers) longer than MAX_REQUEST is never taken: the stream's
  buffer limit is MAX_REQUEST, so the connection is dropped as soon as that many bytes came
  without the blank line that ends a head (asyncio may have taken one socket read past it, and
  stops reading the socket at twice the limit; it is never buffered on).
- The whole head must arrive within HEAD_TIMEOUT_S of the connection — a deadline for the head,
  not per byte, so a client trickling a byte now and then gains nothing by it. A browser on the
  hall's network sends its head in one packet, within milliseconds.
- Writing the answer has REQUEST_TIMEOUT_S in all: a client that does not read is let go.
- At most MAX_CONNECTIONS connections at once (descriptors the game needs for the serial port and
  the broker are never taken by a flood), and at most MAX_PER_ADDRESS from one client address,
  so one host cannot take every slot.

Fairness when a table is full (the address's share, or the whole table): the newcomer is let in
and the OLDEST connection of that table still waiting for its head is dropped; only if every
connection there is already being answered is the newcomer refused. Refusing newcomers (the
old policy) let 64 slow connections lock every real page load out; evicting the oldest
head-reader means an attacker must open MAX_CONNECTIONS new connections (MAX_PER_ADDRESS from
the browser's own address) in the few milliseconds between a browser's connect and its head to
push it out, and a connection being answered is never evicted. The oldest rather than a random
one: an honest browser's head arrives at once, so the oldest head-readers are the stalled ones
(idle preconnects, slow clients, attackers).

A few small static files, so a plain asyncio server rather than a web framework: no dependency,
and a maintained server (aiohttp's, say) would not give this fair policy out of the box — its
documented options limit line and header sizes and keep-alive, not connections in all or per
address — so the eviction above would still be written here, on top of its machinery.

The display account's password is in every page this server hands out: anyone who can load a
board can read it. That is the account's design (config/mosquitto/acl): it reads the public
topics and nothing else, so it gives nothing a board does not show.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from urllib.parse import unquote

from console.shell.hall_media import HallMedia, Media
from console.shell.mdns import local_name
from console.shell.protocol_export import ProtocolExport, ProtocolUnavailable
from console.texts import PAGE_TEXTS

log = logging.getLogger("chgk.display")

# Path -> file under console/data; nothing else is ever read from disk (a game's own scripts
# are added to these by name, console/data/<name>).
# The host screen's core after host.js, before the games' modules (console/data/host.js).
HOST_PARTS = ("host-notices.js", "host-dialogs.js", "host-view.js")
SCRIPTS = {"/hall.js": "hall.js", "/host.js": "host.js", "/vendor/mqtt.min.js": "vendor/mqtt.min.js",
           **{f"/{part}": part for part in HOST_PARTS}}
HOST_SCRIPT = '<script src="/host.js"></script>'
# Every page's icon (the top's arrow), linked from its head: no browser asks for a /favicon.ico.
ICON, ICON_FILE = "/favicon.svg", "favicon.svg"
ICON_LINK = f'<link rel="icon" href="{ICON}" type="image/svg+xml">'
# The host's screen: it commands the game, so it logs in with the host account, whose password
# is never written into a page (anyone on the hall's network can load one).
OVERLAY_PAGE = "overlay.html"  # a stream's transparent overlay (OBS): the scores and the count
HOST_PAGE = "host.html"
# The fight's protocol from the live journal (console/shell/protocol_export.py): the printable
# page, and the files an organiser keeps.
# A media file goes out in chunks of this size, and to this many readers at once: a hall has a
# few boards, and 16 unread requests for a 60-MB video must not take a Pi's memory.
MEDIA_CHUNK = 256 * 1024
MAX_MEDIA_STREAMS = 8
# No script, no plugin, no frame of the console's pages: a pack's SVG opened by the host runs
# nothing in the console's origin; nosniff: the type is the one given.
MEDIA_HEADERS = ("Content-Security-Policy: sandbox; default-src 'none'; img-src 'self' data:; "
                 "media-src 'self'; style-src 'unsafe-inline'\r\nX-Content-Type-Options: nosniff\r\n")
MEDIA_PATH = "/media/"  # + a media file's name in the pack, URL-escaped (console/shell/hall_media.py)
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PROTOCOL_FILES = {"/protocol": ("html", "text/html"), "/protocol.csv": ("csv", "text/csv"),
                  "/protocol.json": ("json", "application/json"),
                  # the sports stage's: the rating site's tournament file, and the teams' masks
                  "/protocol.xlsx": ("xlsx", XLSX_TYPE),
                  "/protocol.txt": ("txt", "text/plain")}
MAX_REQUEST = 8192  # a display's GET is a few hundred bytes; anything bigger is not one
# A hall has a handful of screens. Beyond this many connections at once the oldest one still
# sending its head is dropped (or, if none is, the newcomer): a flood of them must never take
# the file descriptors the game needs (the serial port, the broker).
MAX_CONNECTIONS = 64
# One browser opens up to six connections to a host, a page needs three files; a hall's
# screens each have their own address. Room for two browsers behind one address (a NAT'd
# tablet corner), and a quarter of the table at most.
MAX_PER_ADDRESS = 16
HEAD_TIMEOUT_S = 3.0  # the whole request head, from the connection's start
REQUEST_TIMEOUT_S = 5.0  # writing the whole answer
# A browser's Host header: a name, an IPv4 or a bracketed IPv6 address, maybe a port. The host
# is written into the page, so nothing else is taken.
_HOST_HEADER = re.compile(r"(?P<host>[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]+)?")


@dataclass(eq=False)  # identity: each connection is its own entry
class _Connection:
    address: str
    writer: asyncio.StreamWriter
    reading_head: bool = True


class DisplayServer:
    def __init__(self, bind: str, port: int, *, ws_port: int, base: str,
                 board: str = "scoreboard.html", host_pages: Sequence[str] = (),
                 scripts: Sequence[str] = (), mqtt_username: str = "",
                 mqtt_password: str = "", protocol: ProtocolExport | None = None,
                 media: HallMedia | None = None, pages: Mapping[str, str] | None = None,
                 login_pages: Iterable[str] = (), game: str = "",
                 data: Traversable | None = None, console_pages: bool = True) -> None:
        self.bind, self.port, self.ws_port, self.base = bind, port, ws_port, base
        # The game these pages are (""): a page that sees the console online with another one
        # loads itself again, and is that game's page (hall.js).
        self.game = game
        self.mqtt_username, self.mqtt_password = mqtt_username, mqtt_password
        # The hall's board for the game played here (its GameKind's board): «Своя игра» scores,
        # the ChGK table, the sports timer.
        # `console_pages` False: an organiser's service, whose one page is its board (no host's
        # screen, scoreboard or overlay: they would show a console that is not there).
        console = ({"/scoreboard": board, "/host": HOST_PAGE, "/overlay": OVERLAY_PAGE} if console_pages
                   else {})
        self.pages = {"/": board, **console,
                      **(pages or {})}  # the game's own pages (the sports stage's jury and standings)
        # Pages that ask for their account's password, told none (the host's, a game jury's).
        self.login_pages = {HOST_PAGE, *login_pages}
        self.host_pages = tuple(host_pages)
        for name in (*self.host_pages, *scripts):
            if "/" in name or not name.endswith(".js"):  # a file of console/data, by its name
                raise ValueError(f"{name!r} is not a script of console/data")
        self.scripts = {**SCRIPTS, **{f"/{name}": name for name in (*self.host_pages, *scripts)}}
        self.protocol = protocol  # the fight's protocol from the live journal (None: none here)
        self.media = media  # the pack's pictures, sounds and videos for the hall (None: no pack)
        self._streams = 0  # media files being sent now
        # Every page, script and the icon, read once here: a reinstall of the console while it
        # runs (the README's second command beside the first's demo) replaces the package's
        # files under it, and reading them per request then failed with FileNotFoundError.
        folder = data if data is not None else resources.files("console") / "data"
        self._files = {name: (folder / name).read_bytes()
                       for name in {*self.pages.values(), *self.scripts.values(), ICON_FILE}}
        self._server: asyncio.Server | None = None
        # Open connections, oldest first (a dict keeps insertion order).
        self._table: dict[_Connection, None] = {}

    @property
    def connections(self) -> int:
        """How many connections the server holds open now."""
        return len(self._table)

    def page_addresses(self, host: str) -> list[tuple[str, str]]:
        """(address, page file) of every page in the page table (not the scripts), in its order,
        as a browser reaches them at `host`. After start(): the port may be chosen there."""
        return [(f"http://{host}:{self.port}{path}", name) for path, name in self.pages.items()]

    async def start(self) -> None:
        # limit: the stream never buffers a head beyond MAX_REQUEST before giving up on it.
        self._server = await asyncio.start_server(self._serve, self.bind, self.port, limit=MAX_REQUEST)
        self.port = self._server.sockets[0].getsockname()[1]
        # Where a tablet on the hall's network reaches them: the machine's mDNS name for a
        # server on every address (avahi answers for it; its IP is in `ip addr`), else the
        # address it listens on.
        host = local_name() if self.bind in ("", "0.0.0.0", "::") else self.bind
        log.info("displays: the hall's board http://%s:%d/ ; the host's screen http://%s:%d/host",
                 host, self.port, host, self.port)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def page(self, name: str, host: str) -> bytes:
        """The page, told where the broker is as seen from the browser's side."""
        html = self._files[name].decode("utf-8")
        where = {"ws": f"ws://{host}:{self.ws_port}/", "base": self.base, "game": self.game}
        # The host's screen gets no account at all, only whether the broker wants one: a
        # display login configured means a locked-down broker, and the page asks the host.
        host_page = {**where, "login": bool(self.mqtt_username), "protocol": self.protocol is not None,
                     "texts": PAGE_TEXTS}
        config = json.dumps(host_page if name in self.login_pages else
                            {**where, "username": self.mqtt_username, "password": self.mqtt_password})
        # Inside <script> only "</script" ends the element, and a password may hold anything:
        # JSON's \u escapes keep every "<", ">" and "&" out of the HTML's sight.
        config = config.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        if name == HOST_PAGE:  # the game's modules, each registering itself with host.js
            scripts = (*HOST_PARTS, *self.host_pages)
            html = html.replace(HOST_SCRIPT, "\n".join(
                [HOST_SCRIPT, *(f'<script src="/{page}"></script>' for page in scripts)]))
        if ICON_LINK not in html:
            html = html.replace("</head>", f"{ICON_LINK}\n</head>", 1)
        # Before the first script, so hall.js finds window.CHGK whenever it looks.
        at = html.index("<script")
        return (html[:at] + f"<script>window.CHGK = {config};</script>\n" + html[at:]).encode()

    def _admit(self, connection: _Connection) -> bool:
        """Make room for a newcomer by the policy in the module's docstring; False: refused."""
        same_address = [c for c in self._table if c.address == connection.address]
        if len(same_address) >= MAX_PER_ADDRESS and not self._evict_oldest_stalled(same_address):
            return False
        if len(self._table) >= MAX_CONNECTIONS and not self._evict_oldest_stalled(list(self._table)):
            return False
        self._table[connection] = None
        return True

    def _evict_oldest_stalled(self, table: list[_Connection]) -> bool:
        """Drop the oldest connection of `table` still waiting for its head; False: none is."""
        oldest_stalled = next((c for c in table if c.reading_head), None)
        if oldest_stalled is None:
            return False
        self._evict(oldest_stalled)
        return True

    def _evict(self, connection: _Connection) -> None:
        # Not a cancel of its task (asyncio's stream callback would report a cancelled handler
        # as an error): the abort ends its read at once and its handler finishes on its own. The
        # slot is free now, the descriptor on the loop's next turn.
        del self._table[connection]
        connection.writer.transport.abort()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        connection = _Connection(str(peer[0]) if peer else "", writer)
        if not self._admit(connection):
            writer.close()
            return
        try:
            await self._answer(reader, connection)
        except (ConnectionError, TimeoutError):
            pass  # the browser went away, or does not read its answer: nothing more to do
        finally:
            self._table.pop(connection, None)  # already gone if it was evicted
            writer.close()

    async def _stream_media(self, writer: asyncio.StreamWriter, media: Media) -> None:
        """The shown file in chunks (never whole in memory; read off the loop), each written
        within REQUEST_TIMEOUT_S; sandboxed: an SVG or an HTML page in a pack runs no script in
        the console's origin (whose pages keep the host's broker login)."""
        self._streams += 1
        try:
            file = await asyncio.to_thread(media.open)
            try:
                writer.write(f"HTTP/1.1 200 OK\r\nContent-Type: {media.content_type}\r\n"
                             f"Content-Length: {media.size}\r\n{MEDIA_HEADERS}"
                             "Connection: close\r\n\r\n".encode())
                while chunk := await asyncio.to_thread(file.read, MEDIA_CHUNK):
                    writer.write(chunk)
                    async with asyncio.timeout(REQUEST_TIMEOUT_S):  # a reader that stops reading is let go
                        await writer.drain()
            finally:
                await asyncio.to_thread(file.close)
        except OSError:
            return  # the pack changed under it: the board shows nothing rather than a half file
        finally:
            self._streams -= 1

    async def _answer(self, reader: asyncio.StreamReader, connection: _Connection) -> None:
        try:
            async with asyncio.timeout(HEAD_TIMEOUT_S):  # not wait_for: it can swallow a cancellation
                head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            return
        connection.reading_head = False
        request, *header_lines = head.decode("latin-1").split("\r\n")
        method, _, rest = request.partition(" ")
        path = rest.split(" ", 1)[0].split("?", 1)[0]
        headers = {name.strip().lower(): value.strip()
                   for name, _, value in (line.partition(":") for line in header_lines)}
        host_header = _HOST_HEADER.fullmatch(headers.get("host", ""))
        host = host_header["host"] if host_header else "127.0.0.1"
        if method == "GET" and path in self.pages:
            status, body, kind = "200 OK", self.page(self.pages[path], host), "text/html"
        elif method == "GET" and path in (ICON, "/favicon.ico"):  # (an old browser asks for the .ico)
            status, body, kind = "200 OK", self._files[ICON_FILE], "image/svg+xml"
        elif method == "GET" and path in self.scripts:
            status, body, kind = "200 OK", self._files[self.scripts[path]], "text/javascript"
        elif method == "GET" and path.startswith(MEDIA_PATH) and self.media is not None:
            # Only the file the hall is shown now; looked up off the loop (a package's index).
            found = await asyncio.to_thread(self.media.shown_media, unquote(path.removeprefix(MEDIA_PATH)))
            if found is not None and self._streams < MAX_MEDIA_STREAMS:
                await self._stream_media(connection.writer, found)
                return
            status, kind = ("404 Not Found", "text/plain") if found is None else ("503 Service Unavailable",
                                                                                  "text/plain")
            body = ("этот файл сейчас не показан залу\n" if found is None
                    else "слишком много загрузок сразу: повторите\n").encode()
        elif method == "GET" and path in PROTOCOL_FILES and self.protocol is not None:
            suffix, kind = PROTOCOL_FILES[path]
            protocol = await self.protocol.get(suffix)
            if isinstance(protocol, ProtocolUnavailable):
                status, body, kind = "503 Service Unavailable", f"{protocol.why}\n".encode(), "text/plain"
            else:
                status, body = "200 OK", protocol
        else:
            status, body, kind = "404 Not Found", "нет такой страницы\n".encode(), "text/plain"
        # The CSV and the JSON are files to keep: the browser saves them under this name.
        saved = (f'Content-Disposition: attachment; filename="protocol{path.removeprefix("/protocol")}"\r\n'
                 if path in PROTOCOL_FILES and path != "/protocol" and status.startswith("200") else "")
        writer = connection.writer
        charset = "; charset=utf-8" if kind.startswith(("text/", "application/json")) else ""
        writer.write(f"HTTP/1.1 {status}\r\nContent-Type: {kind}{charset}\r\n{saved}"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        async with asyncio.timeout(REQUEST_TIMEOUT_S):  # a reader that never reads is let go
            await writer.drain()
