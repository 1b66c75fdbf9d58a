"""The states a device link reports (``on_status(state, detail)``), one enum for every driver.

Contract: a driver reports a state on change only, with an English sentence naming the
device. The values are the wire's (``sources`` of the retained status, ``source_status``
events: schemas/status.schema.json); the console names each in Russian (console/texts.py,
and the host screen's copy of the same words in console/data/host.js).
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["LinkState"]


class LinkState(StrEnum):
    CONNECTED = "connected"  # talking to the device; its inputs count
    DISCONNECTED = "disconnected"  # gone, unplugged or silent: reopened and retried on its own
    INCOMPATIBLE = "incompatible"  # answers, but in another protocol version: never used
    RESYNCING = "resyncing"  # an MCU's clock broke: its timeline is being re-seeded (check decisions)
