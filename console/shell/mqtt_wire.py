"""What goes over MQTT, apart from how: the topics and the one encoding of every payload.

Topics (documented in docs/mqtt.md, payloads in schemas/):

* ``<prefix>/<node>/status``  retained, ``{"state": "online"|"offline", ...}``; the will is "offline";
* ``<prefix>/<node>/state``   retained snapshot of the game, so a late display is right at once;
* ``<prefix>/<node>/events``  non-retained stream of decisions, one JSON object per event;
* ``<prefix>/<node>/host/command``  the host's tablet sends ``{"action": "correct"}`` here;
  a command the broker delivers as retained is never executed (``on_retained_command``);
* ``<prefix>/<node>/host/do/<action>``  the same command as a plain payload (a show
  controller's button: `plain_command`), and ``<prefix>/<node>/flat/...`` retained plain values
  of the state (console/shell/flat_topics.py), published as they change;
* ``<prefix>/<node>/jury/command``  the game jury's sheet edits (a game with a jury only:
  subscribed when ``on_jury_command`` is given), and ``<prefix>/<node>/sheet/...`` its retained
  parts (`publish_retained`).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_MESSAGE_BYTES", "Topics", "encode", "plain_command"]

# One encoder for every payload, built once (public API; its C accelerator is used where the
# interpreter has it). No circular check: payloads are trees built by console/wire.py.
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)


def plain_command(action: str, payload: bytes) -> bytes:
    """A command sent as a plain payload on ``<base>/host/do/<action>`` (a show controller's
    button) as the JSON command the console takes: the payload, when a JSON object, gives the
    arguments (``{"reason": "..."}``); anything else (empty, "1", "press") is no argument."""
    args: Any = None
    try:
        args = json.loads(payload) if payload.strip() else None
    except (ValueError, RecursionError):
        args = None
    return encode({**(args if isinstance(args, dict) else {}), "action": action})


def encode(payload: dict[str, Any]) -> bytes:
    """The one JSON encoding of every payload (UTF-8, Russian text as is, compact). Text that is
    not valid Unicode (a file name's undecodable bytes, kept by Python as lone surrogates) is
    written as its JSON escape: a payload is always encoded, the link never stuck on one."""
    return _JSON.encode(payload).encode("utf-8", "backslashreplace")


# config/mosquitto/chgk-console.conf's message_size_limit: a larger payload the broker takes and
# forwards to no one.
MAX_MESSAGE_BYTES = 65536


class Topics:
    def __init__(self, prefix: str, node: str) -> None:
        base = f"{prefix}/{node}"
        self.base = base
        self.status = f"{base}/status"
        self.state = f"{base}/state"
        self.events = f"{base}/events"
        self.command = f"{base}/host/command"
        self.angle = f"{base}/angle"  # the top's live angle while it spins (table)
        self.record = f"{base}/record"  # the last game's record, retained (table)
        self.host_state = f"{base}/host/state"  # the host's view: hidden sectors too (table)
        self.host_events = f"{base}/host/events"  # events only the host may see (table)
        self.host_notices = f"{base}/host/notices"  # the last notices, retained (the host's «Внимание»)
        self.flat = f"{base}/flat"  # plain retained values for show control (console/shell/flat_topics.py)
        self.do = f"{base}/host/do"  # + "/<action>": a host command as a plain payload (Companion)
        self.jury = f"{base}/jury/command"  # the game jury's sheet (the sports stage; its own account)
        self.sheet = f"{base}/sheet"  # + "/<part>": the jury's sheet, retained (the sports stage)
