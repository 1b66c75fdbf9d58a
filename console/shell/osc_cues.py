"""Cues out as OSC messages (``[osc]``): QLab or a lighting desk follows the game's sounds.

Contract: `OscCues(host, port, address, node)`; `send(cue)` sends one UDP OSC message
``<address>/cue/<cue>`` (start, signal, warning, time_up, final_beeps, false_start) with the
node's name as its argument, through python-osc's public client. It never blocks and never
raises: a host name is resolved once, on a thread of its own (retried every RESOLVE_RETRY_S
while it does not resolve: the show laptop may be switched on later), and the cues go to its
address; until then a cue is dropped (said once). A send that fails (no route) is logged once,
until a send works again. So a name that takes seconds to resolve never holds the game's loop,
and one that does not resolve at boot never stops the console. Off by default; the console
makes one only when ``osc.enabled``.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading

from pythonosc.udp_client import SimpleUDPClient

from console.engine.model import Cue

__all__ = ["OscCues"]

log = logging.getLogger("chgk.osc")
RESOLVE_RETRY_S = 5.0


class OscCues:
    def __init__(self, host: str, port: int, address: str, node: str) -> None:
        self._target = f"{host}:{port}"
        self._port = port
        self._address = address.rstrip("/")
        self._node = node
        self._failing = False
        self._client: SimpleUDPClient | None = None
        self._stop = threading.Event()
        try:
            ipaddress.ip_address(host)
        except ValueError:  # a name: resolved off the loop
            threading.Thread(target=self._resolve, args=(host,), name="osc-resolve", daemon=True).start()
        else:
            self._client = SimpleUDPClient(host, port)

    def _resolve(self, host: str) -> None:
        said = False
        while not self._stop.is_set():
            try:
                found = socket.getaddrinfo(host, self._port, type=socket.SOCK_DGRAM)
            except OSError as exc:
                if not said:
                    log.warning("osc: %s does not resolve (%s); tried again every %g s, the game goes on",
                                self._target, exc, RESOLVE_RETRY_S)
                    said = True
                self._stop.wait(RESOLVE_RETRY_S)
                continue
            self._client = SimpleUDPClient(str(found[0][4][0]), self._port)
            log.info("osc: the cues go to %s (%s)", self._target, found[0][4][0])
            return

    def close(self) -> None:
        self._stop.set()

    def send(self, cue: Cue) -> None:
        client = self._client
        if client is None:
            if not self._failing:
                log.warning("osc: %s is not resolved yet: cue %s not sent", self._target, cue.value)
            self._failing = True
            return
        try:
            client.send_message(f"{self._address}/cue/{cue.value}", self._node)
        except OSError as exc:
            if not self._failing:
                log.warning("osc: cannot send the cues to %s (%s); the game goes on", self._target, exc)
            self._failing = True
        else:
            if self._failing:
                log.info("osc: the cues reach %s again", self._target)
            self._failing = False
