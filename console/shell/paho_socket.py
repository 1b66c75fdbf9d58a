"""Driving one paho-mqtt client's socket from the asyncio loop: paho's external-event-loop API.

Contract: `PahoSocket(loop, client, on_io, lose)`; `watch()` reads whenever the socket is
readable (`client.loop_read()`), then calls `on_io()` (the link notes the acks and hands on the
commands read, and sends what waits); `wants_write()` registers a writer only while paho has
bytes it could not send (`client.want_write()`), and calls `on_io()` after each write of
them (a QoS 0 message is published once written whole); `unwatch()` stops both. Reading
drains the SSL object: a TLS record read for one packet may bring the next ones along into
the SSL buffer, where the socket's readiness cannot see them, so it reads on while
``pending()`` says bytes wait there (as paho's own ``loop()`` does). A read or write that
fails calls `lose(reason)`; nothing here raises into the loop. `no_delay` is paho's
``on_socket_open`` that turns Nagle off; `close_client` closes a connection the link is done
with, at once.

Why: with no network thread and no ``on_socket_register_write`` callback, paho's
``publish()`` writes the packet at once when the socket can take it, so an event leaves inside
the call that decided it (the press's own serial callback), not a task hop and an awaited
confirmation later (docs/performance.md). The link runs ``loop_misc()`` (keep-alive) itself.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import MQTTErrorCode

__all__ = ["PahoSocket", "close_client", "no_delay"]

OK = MQTTErrorCode.MQTT_ERR_SUCCESS


class PahoSocket:
    """See the module docstring."""

    def __init__(self, loop: asyncio.AbstractEventLoop, client: mqtt.Client, *,
                 on_io: Callable[[], None], lose: Callable[[str], None]) -> None:
        self._loop = loop
        self._client = client
        self._on_io = on_io
        self._lose = lose
        self._fd = -1
        self._writing = False  # the socket watched for writing: paho has bytes it could not send

    def watch(self) -> bool:
        """Read when the socket is readable; False when the connection closed as it opened."""
        sock = self._client.socket()
        if sock is None:
            return False
        self._fd = sock.fileno()
        self._loop.add_reader(self._fd, self._readable)
        return True

    def unwatch(self) -> None:
        if self._fd >= 0:
            self._loop.remove_reader(self._fd)
            if self._writing:
                self._loop.remove_writer(self._fd)
        self._fd = -1
        self._writing = False

    def wants_write(self) -> None:
        """Watch for writing while paho holds bytes the socket could not take at once."""
        if not self._writing and self._fd >= 0 and self._client.want_write():
            self._loop.add_writer(self._fd, self._writable)
            self._writing = True

    def _readable(self) -> None:
        client = self._client
        try:
            rc = client.loop_read()
            # TLS: what the SSL object has buffered already, the socket will not signal.
            while rc == OK and self._fd >= 0 and _ssl_pending(client):
                rc = client.loop_read()
        except Exception as exc:  # raised in a callback, or by the socket: the link is in doubt
            self._lose(f"reading from the broker failed: {exc!r}")
            rc = OK
        if rc != OK:
            self._lose(f"reading from the broker failed: {mqtt.error_string(rc)}")
        self._on_io()

    def _writable(self) -> None:
        client = self._client
        try:
            rc = client.loop_write()
        except Exception as exc:
            self._lose(f"writing to the broker failed: {exc!r}")
            rc = OK
        if rc != OK:
            self._lose(f"writing to the broker failed: {mqtt.error_string(rc)}")
        if self._writing and not client.want_write():
            self._loop.remove_writer(self._fd)
            self._writing = False
        self._on_io()


def no_delay(_client: mqtt.Client, _userdata: Any, sock: mqtt.SocketLike) -> None:
    """paho's on_socket_open: Nagle off before the CONNECT goes (paho sets no option itself)."""
    if isinstance(sock, socket.socket):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _ssl_pending(client: mqtt.Client) -> int:
    """Bytes the connection's SSL object holds already decrypted (0 without TLS)."""
    sock = client.socket()
    return sock.pending() if isinstance(sock, ssl.SSLSocket) else 0


def close_client(client: mqtt.Client, connecting: asyncio.Future[MQTTErrorCode]) -> None:
    """Close a connection the link is done with, at once. With no network thread, paho's
    `disconnect()` writes DISCONNECT and closes the socket within the call; a socket that
    cannot take even that is closed as it is."""
    if connecting.cancelled() or connecting.exception() is not None:
        return  # no connection was made (and the failure is seen, not left unretrieved)
    if client.socket() is None:
        return
    client.disconnect()
    sock = client.socket()
    if sock is not None:
        sock.close()
