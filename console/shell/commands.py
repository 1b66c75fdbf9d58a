"""Reading a command off MQTT, without acting on it: its JSON object, its time, the error
that refuses it. Pure (the caller passes the times).

Contract: `command_object(payload)` is the command's JSON object, or ValueError naming what is
wrong (too large, not an object, text that is no Unicode). `command_time(sent_ns, received,
alive_at)` is when a command happened: the host screen's ``sent_ns`` if it falls between the
console's last sign of life before reading it (`alive_at`) and the reading (`received`), the
reading otherwise (ValueError for a ``sent_ns`` that is no integer). `read_time(received,
ticked, alive_at, tick_ns, hold_ns)` dates an input of a source with no clock of its own
(`SourceHost.read_time`). `refusal(who, payload, exc, help_text)` is the error event's text.
"""

from __future__ import annotations

import json
from typing import Any

from console.shell.error_reports import shortened

__all__ = ["MAX_COMMAND_BYTES", "command_object", "command_time", "read_time", "refusal"]

MAX_COMMAND_BYTES = 4096  # a host command is tens of bytes; anything this big is refused unread


def command_object(payload: bytes) -> dict[str, Any]:
    """A command's JSON object; ValueError naming what is wrong with it."""
    if len(payload) > MAX_COMMAND_BYTES:  # not even parsed: a real command is tens of bytes
        raise ValueError(f"too large: {len(payload)} bytes (at most {MAX_COMMAND_BYTES})")
    command = json.loads(payload)
    if not isinstance(command, dict):
        raise ValueError("expected a JSON object")
    try:  # JSON may escape half a surrogate pair: text that is no text (refused, strictly)
        json.dumps(command, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("its text is not valid Unicode (a lone surrogate)") from None
    return command


def command_time(sent_ns: object, received: int, alive_at: int) -> int:
    """When the host's screen says it sent the command (its estimate of this console's clock),
    if that falls between the console's last sign of life before reading it and the reading:
    so a command sent in time while the console was held up is judged in time, and a screen
    can never date one earlier than the console could have read it. Otherwise (or without
    ``sent_ns``), when it was read."""
    if sent_ns is None:
        return received
    if isinstance(sent_ns, bool) or not isinstance(sent_ns, int):
        raise ValueError(f"sent_ns must be an integer (ns on the console's clock), got {sent_ns!r}")
    return min(received, max(sent_ns, alive_at))


def read_time(received: int, ticked: int | None, alive_at: int, *, tick_ns: int,
              hold_ns: int) -> tuple[int, int | None]:
    """When an input from a source with no clock of its own (a Buzz! report), read at
    `received`, is taken to have happened, and from when it may be misplaced (None: sure).
    `ticked`: the lag watch's latest tick (None: no watch, a console driven by hand).

    Read while the console runs on time: at `received`. Read just after a hold (the lag watch
    has not ticked for longer than a hold, or its latest tick came after one): it may have
    waited through the hold, so it is dated at the console's last sign of life before it, the
    earliest it can have happened (a press made during a stall is never late for the stall),
    and that instant begins a span whose decisions are not sure (`Watermark.lost_from`)."""
    if ticked is None:
        return received, None
    if received - ticked > tick_ns + hold_ns:  # held now: the watch has not run since
        return ticked, ticked
    if ticked - alive_at > tick_ns + hold_ns and received - ticked <= hold_ns:
        return alive_at, alive_at  # read right after the tick that saw a hold
    return received, None


def refusal(who: str, payload: bytes, exc: Exception, help_text: str) -> str:
    """The error event's text for a refused `who` ("host", "jury") command."""
    if isinstance(exc, RecursionError):  # absurdly nested JSON
        reason = "too deeply nested"
    else:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
    if len(payload) > MAX_COMMAND_BYTES:
        return (f"bad {who} command of {len(payload)} bytes: too large (at most {MAX_COMMAND_BYTES}) "
                f"({help_text})")
    shown = payload[:200].decode("utf-8", errors="replace")
    return f"bad {who} command {shown!r}: {shortened(reason)} ({help_text})"
