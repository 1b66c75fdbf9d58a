"""Cues out as OSC messages (``[osc]``): QLab or a lighting desk follows the game's sounds.

Contract: `OscCues(host, port, address, node)`; `send(cue)` sends one UDP OSC message
``<address>/cue/<cue>`` (start, signal, warning, time_up, final_beeps, false_start) with the
node's name as its argument, through python-osc's public client. It never blocks (UDP) and
never raises: a send that fails (no route, the address not resolvable) is logged once, until a
send works again. Off by default; the console makes one only when ``osc.enabled``.
"""

from __future__ import annotations

import logging

from pythonosc.udp_client import SimpleUDPClient

from console.engine.model import Cue

__all__ = ["OscCues"]

log = logging.getLogger("chgk.osc")


class OscCues:
    def __init__(self, host: str, port: int, address: str, node: str) -> None:
        self._target = f"{host}:{port}"
        self._client = SimpleUDPClient(host, port)
        self._address = address.rstrip("/")
        self._node = node
        self._failing = False

    def send(self, cue: Cue) -> None:
        try:
            self._client.send_message(f"{self._address}/cue/{cue.value}", self._node)
        except OSError as exc:
            if not self._failing:
                log.warning("osc: cannot send the cues to %s (%s); the game goes on", self._target, exc)
            self._failing = True
        else:
            if self._failing:
                log.info("osc: the cues reach %s again", self._target)
            self._failing = False
