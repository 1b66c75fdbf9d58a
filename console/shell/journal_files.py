"""Where a start's journal lives on the disk: a fresh game's file, begun under a name no
resume looks at and made the one to resume only once its beginning is on the disk; or
today's journal, resumed and appended to.

Contract: `JournalFiles(base)` names a fresh game's journal after `base` (``journal.jsonl``
-> ``journal-YYYYMMDD-HHMMSS.jsonl``). `open()` creates it as ``<that name>.<pid>.part`` and
returns its descriptor (OSError as os.open raises). `commit()` is called once its config line
is synced: it gives the file its dated name (the first of ``-2``, ``-3`` … not taken: a
clock-less Pi boots to the same saved time again and again), syncs the directory and returns
the name. Until then `find_journal` (console/shell/resume.py) does not see it, so a start
killed in its first milliseconds, or one whose disk refused the file, never hides the older
journal before it. `Resumed(path, keep_bytes)` is today's journal, resumed: this start
appends to it (no copy), after cutting off a torn last line. `set_aside(path, mark)` renames
a journal ``journal-X.jsonl`` -> ``journal-X<mark>.jsonl`` (``-2`` … if taken).
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from pathlib import Path
from typing import Protocol

__all__ = ["PART", "JournalFiles", "JournalTarget", "Resumed", "set_aside"]

log = logging.getLogger("chgk.journal")

PART = ".part"  # a journal being begun: never resumed


class JournalTarget(Protocol):
    """Where a `Journal` writes: a new file (`JournalFiles`) or today's, resumed (`Resumed`)."""

    committed: bool  # already the journal to resume
    path: Path  # where its lines are now

    def open(self) -> int: ...
    def commit(self) -> Path: ...


class Resumed:
    """Today's journal, resumed: this start appends to it (no copy), after cutting off a torn
    last line (`keep_bytes`: the length of what was read whole), so the next line starts a
    line of its own. It is the journal to resume already."""

    committed = True

    def __init__(self, path: Path, keep_bytes: int, *, needs_newline: bool = False) -> None:
        self.path = path
        self.keep_bytes = keep_bytes
        self.needs_newline = needs_newline  # its last line is whole but lacks its newline

    def open(self) -> int:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        try:
            if os.fstat(fd).st_size > self.keep_bytes:
                os.ftruncate(fd, self.keep_bytes)
            if self.needs_newline:
                os.write(fd, b"\n")
                self.needs_newline = False
        except OSError:
            os.close(fd)
            raise
        return fd

    def commit(self) -> Path:
        return self.path


class JournalFiles:
    """See the module docstring."""

    committed = False

    def __init__(self, base: Path, *, stamp: str | None = None) -> None:
        self.base = base
        stamp = time.strftime("%Y%m%d-%H%M%S") if stamp is None else stamp
        self.dated = base.with_name(f"{base.stem}-{stamp}{base.suffix}")
        self.part = self.dated.with_name(f"{self.dated.name}.{os.getpid()}{PART}")
        self.path = self.part  # where the lines are now: the part, then the dated name

    def open(self) -> int:
        """Create this start's journal under its part name; its descriptor (write only)."""
        self.base.parent.mkdir(parents=True, exist_ok=True)
        n = 1
        while True:
            try:
                fd = os.open(self.part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
            except FileExistsError:  # one left by a start of a process with this pid
                n += 1
                self.part = self.dated.with_name(f"{self.dated.name}.{os.getpid()}-{n}{PART}")
                continue
            self.path = self.part
            return fd

    def commit(self) -> Path:
        """Give the part its dated name (never another journal's) and sync the directory."""
        candidate, n = self.dated, 1
        while True:
            try:
                os.link(self.part, candidate)  # fails if taken: never replaces another journal
            except FileExistsError:
                n += 1
                candidate = self.dated.with_name(f"{self.dated.stem}-{n}{self.dated.suffix}")
                continue
            except OSError:
                # A file system without hard links (a FAT-formatted stick): rename, the name
                # checked first (this console holds the journal's lock: nobody else names one).
                if candidate.exists():
                    n += 1
                    candidate = self.dated.with_name(f"{self.dated.stem}-{n}{self.dated.suffix}")
                    continue
                os.rename(self.part, candidate)
                break
            os.unlink(self.part)
            break
        self.path = candidate
        sync_directory(candidate.parent)
        return candidate


def sync_directory(directory: Path) -> None:
    """Have a rename or a new name in `directory` reach the disk (a power cut keeps it)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def set_aside(path: Path, mark: str) -> Path | None:
    """journal-X.jsonl -> journal-X<mark>.jsonl (or -2 … if taken); None if it cannot be."""
    target = path.with_name(f"{path.stem}{mark}{path.suffix}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.stem}{mark}-{n}{path.suffix}")
    try:
        path.rename(target)
    except OSError as exc:
        log.warning("journal: cannot rename %s (%s)", path, exc.strerror)
        return None
    sync_directory(path.parent)
    return target
