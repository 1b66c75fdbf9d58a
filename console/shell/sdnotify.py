"""Minimal systemd notification protocol (``sd_notify``) without libsystemd.

Contract:

* :func:`notify` sends one datagram to ``$NOTIFY_SOCKET`` and reports whether it was
  sent.  Outside systemd (no ``NOTIFY_SOCKET``) it does nothing and returns False.
  It never raises on socket errors and never blocks the event loop: the socket is
  non-blocking, so a full receive queue drops the message (returns False) instead of
  stalling the referee.  Only AF_UNIX addresses (a path, or ``@name`` for the
  abstract namespace) are supported; systemd's ``vsock:`` addresses return False.
* :func:`watchdog_interval` says how often to send ``WATCHDOG=1``: half of
  ``$WATCHDOG_USEC`` (the margin systemd itself recommends), or None when the
  watchdog is not enabled for this process.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping

__all__ = ["notify", "watchdog_interval"]


def notify(state: str, *, env: Mapping[str, str] | None = None) -> bool:
    """Send ``state`` (e.g. ``"READY=1\\nSTATUS=Waiting for buzzers"``) to systemd.

    ``env`` defaults to ``os.environ``.  Returns True when the whole datagram was
    sent, False when not running under systemd or when sending failed.
    """
    environ = os.environ if env is None else env
    address = environ.get("NOTIFY_SOCKET", "")
    if address.startswith("@"):
        # Abstract namespace: systemd writes the leading NUL byte as '@'.
        address = "\0" + address[1:]
    elif not address.startswith("/"):
        return False  # unset, or a non-AF_UNIX address (vsock:...) we do not speak
    payload = state.encode("utf-8")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.setblocking(False)
            sent = sock.sendto(payload, address)
    except OSError:
        # ENOENT, ECONNREFUSED, EAGAIN, path too long...: a lost notification must
        # never take the console down.
        return False
    return sent == len(payload)


def watchdog_interval(env: Mapping[str, str] | None = None) -> float | None:
    """Return the keep-alive period in seconds, or None if no watchdog applies.

    That is half of ``WATCHDOG_USEC`` when it is a positive integer and
    ``WATCHDOG_PID`` is unset or equals this process id (the variables may be
    inherited by a child that systemd is not watching).  ``env`` defaults to
    ``os.environ``.
    """
    environ = os.environ if env is None else env
    pid = environ.get("WATCHDOG_PID")
    if pid is not None:
        try:
            if int(pid) != os.getpid():
                return None
        except ValueError:
            return None
    try:
        usec = int(environ.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    if usec <= 0:
        return None
    return usec / 2 / 1_000_000
