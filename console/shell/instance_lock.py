"""One console per table: a second `chgk-console run` for the same node or the same journal
exits with a clear message before it touches anything.

Two consoles on one node would both publish its retained status and state (the displays show
whichever wrote last) and both referee the same presses; two on one journal would each take
the other's journal for today's, rename it and resume half a fight. So `acquire(config)`
takes, before the journal is read or the broker is reached:

* the node's lock: one per broker, prefix and node, in the machine's runtime directory
  (``$XDG_RUNTIME_DIR``, else the temporary directory): a console on another broker may use
  the same node name;
* the journal's lock: a ``.<stem>.lock`` file beside the journal's files, so two configs
  naming the same journal (whatever their node) cannot share it.

Each is an advisory ``flock`` on an open file, held for the life of the process: the kernel
releases it when the process ends, however it ends (kill -9 and a power cut leave nothing
stale to clear). The file holds the holder's pid, for the message. `AlreadyRunning` says who
holds what.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import tempfile
from pathlib import Path
from typing import TextIO

from console.config import Config

__all__ = ["AlreadyRunning", "Locks", "acquire", "hold"]


class AlreadyRunning(Exception):
    """Another console holds the node or the journal (the message names it and its pid)."""


class Locks:
    """The locks one console holds; `release()` lets them go (the process's end does too)."""

    def __init__(self, files: list[TextIO]) -> None:
        self._files = files

    def release(self) -> None:
        for file in self._files:
            with contextlib.suppress(OSError):
                file.close()
        self._files = []


def node_lock_path(config: Config) -> Path:
    """The node's lock file: one per broker (host and port), prefix and node."""
    host = config.mqtt.host or "embedded"
    key = f"{host}-{config.mqtt.port}-{config.mqtt.prefix}-{config.console.node}"
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", key)
    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    return Path(base) / f"chgk-console-{safe}.lock"


def journal_lock_path(journal: str) -> Path:
    base = Path(journal)
    return base.with_name(f".{base.stem}.lock")


def acquire(config: Config) -> Locks:
    """Take the node's lock and the journal's (see the module docstring); AlreadyRunning if
    another process holds either, with nothing taken."""
    mqtt = config.mqtt
    broker = f"{mqtt.host}:{mqtt.port}" if mqtt.host else f"the embedded broker on port {mqtt.port}"
    wanted = [(node_lock_path(config), f"node {config.console.node!r} on {broker}")]
    if config.console.journal:
        wanted.append((journal_lock_path(config.console.journal),
                       f"the journal {config.console.journal}"))
    files: list[TextIO] = []
    try:
        for path, what in wanted:
            file = hold(path, what)
            if file is not None:
                files.append(file)
    except BaseException:
        Locks(files).release()
        raise
    return Locks(files)


def hold(path: Path, what: str) -> TextIO | None:
    """The lock at `path`, held for as long as the file returned stays open; AlreadyRunning
    naming `what` and the holder's pid if another process holds it. None where no file can be
    made there (a read-only journal directory: no console can write a journal there either,
    and the journal says so)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        file = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the process's life
    except OSError:
        return None
    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        file.seek(0)
        holder = file.read().strip() or "?"
        file.close()
        raise AlreadyRunning(f"another chgk-console (pid {holder}) already runs {what}; "
                             f"this one exits and touches nothing (stop the other first: "
                             f"systemctl stop chgk-console, or kill {holder})") from None
    file.seek(0)
    file.truncate()
    file.write(f"{os.getpid()}\n")
    file.flush()
    return file
