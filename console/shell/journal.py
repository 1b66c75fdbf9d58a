"""The journal: every input the referee was given, one JSON line each, for `replay` and resume.

Contract: `Journal(file, report_error, shift_ns=0, on_state=None)`, `file` an open text file
(tests; in memory without a descriptor) or this start's `JournalFiles` (the daemon: the file
is created by the journal itself). `write(line)` appends one line and hands it to the kernel
at once (a killed daemon loses nothing written); `sync_soon()` asks for the lines written so
far to reach the disk (a power cut loses nothing synced); `commit()` (at start, once the
config line and a resumed journal's lines are written) syncs them and makes the file the one
to resume (a resumed journal, appended to, is that already); `write_checkpoint(line)` adds a
checkpoint (`lines` counts the lines since the last one); `close()` syncs what is left and
closes the file.

A journal that cannot be created, written or synced (the card full or pulled, a read-only
directory) never costs the game an input and is never given up: its lines wait in memory,
the console is told at once (`on_state("failing", why)`: the host's screen and the retained
status say so), `retry(now)` (the console's lag watch calls it) tries again at most every
RETRY_S, and once the disk takes them every waiting line is written in order, synced, the
file committed if it was not yet, and `on_state("writing", ...)` says so. Only a console
stopped or killed while it fails loses what waited.

Durability (docs/journal.md): the console calls `sync_soon()` after carrying out each
decision (`decides(outputs)`: any event but the top's live angle), i.e. after the lamp frame
is written and the event published. The `fdatasync` itself runs on one syncer thread of this
journal, not in the event loop: it takes 0.1-1 ms on a PC's SSD and several to tens of ms on a
Pi's SD card (`bench/journal_sync.py` prints the figures), and done inline it would hold the
loop, so a second player's press arriving meanwhile would wait for its lamp behind the disk.
The loop's cost is a lock and a notify (about a microsecond). Requests coalesce: one sync
covers every line written before it starts. The window this leaves (a decision published
and then lost to a power cut within those milliseconds) is the same as with an inline sync
placed after the lamps; a sync before the lamps would put the disk on the lamp path.

Time lines: `clock_line(now)` is ``{"clock_ms": ...}``, written when the referee decided on
its own timer (a window closed, a count ran out), so that a resume knows that time had
passed that far (console/playback.py reads it as "advance the clock").

`shift_ns`: after a reboot the monotonic clock starts again near zero, below the resumed
journal's times; the resumed referee then runs `shift_ns` ahead of the host clock
(console/shell/resume.py) and the journal writes its times shifted the same way, so the file
stays in one timebase and replays as a whole.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import threading
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from console.engine.events import Event
from console.engine.model import NS_PER_MS, NS_PER_S, Output
from console.shell.journal_files import JournalFiles, JournalTarget, Resumed

__all__ = ["RETRY_S", "Journal", "clock_line", "decides"]

_TIME_KEYS = ("at_ms", "arrive_ms", "clock_ms")
# What json.dumps(line, ensure_ascii=False) writes, with its encoder built once: json.dumps
# builds a new one for every call with an argument, and this is on the press path.
_LINE = json.JSONEncoder(ensure_ascii=False)
RETRY_S = 1.0  # a failing journal tries the disk again this often
WRITING, FAILING = "writing", "failing"


def decides(outputs: Iterable[Output]) -> bool:
    """Whether the outputs hold a decision worth a sync: any event but the top's live angle
    (up to 20 a second while it spins; the stop it leads to is an event of its own)."""
    return any(isinstance(o, Event) and not o.LIVE for o in outputs)


def clock_line(now: int, held_ns: int = 0) -> dict[str, Any]:
    """The journal line saying the console's clock reached `now` (host ns); `held_ns`: it came
    to this decision that late, held up (a replay reads the times, and only says the hold)."""
    line: dict[str, Any] = {"clock_ms": now / NS_PER_MS}
    if held_ns:
        line["held_ms"] = held_ns / NS_PER_MS
    return line


class Journal:
    """See the module docstring."""

    def __init__(self, file: TextIO | JournalFiles | Resumed | None, report_error: Callable[[str, str], None],
                 *, shift_ns: int = 0, on_state: Callable[[str, str], None] | None = None) -> None:
        self._files: JournalTarget | None = None
        self._file: TextIO | None = None
        if isinstance(file, JournalFiles | Resumed):
            self._files = file
        else:
            self._file = file
        self._kept = file is not None  # a journal is kept (configured), failing or not
        self._report_error = report_error
        self._on_state = on_state
        self.shift_ms = shift_ns / NS_PER_MS
        self._fd = _fileno(self._file)
        self._memory = self._file is not None and self._fd is None  # an in-memory one (tests)
        self._pending = bytearray()  # written, not yet taken by the kernel
        # A file handed in is the caller's to name; a resumed journal is named already.
        self._committed = self._files is None or self._files.committed
        self.lines = 0  # lines written (or waiting) since the last checkpoint (console/shell/checkpoint.py)
        self._failing: str | None = None  # why the disk does not take the lines, while it does not
        self._tried_ns: int | None = None
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._wanted = False  # a sync was asked for and has not started yet
        self._closing = False
        self._sync_error: OSError | None = None  # from the syncer thread, reported by the loop's thread
        self._thread: threading.Thread | None = None
        self.syncs = 0  # completed, for tests and the benchmark
        if self._files is not None:
            self._open_file()

    @property
    def open(self) -> bool:
        """Whether a journal is kept: its lines are taken (written, or waiting while it fails)."""
        return self._kept

    @property
    def failing(self) -> str | None:
        """Why the journal's lines do not reach the disk now (None: they do)."""
        return self._failing

    @property
    def name(self) -> str:
        if self._files is not None:
            return str(self._files.path)
        return str(getattr(self._file, "name", ""))

    def write(self, *lines: dict[str, Any]) -> None:
        """Append `lines` in one write to the file (an MCU scan's press and watermark arrive
        together: each write to the file system costs the press path tens of µs)."""
        if not self._kept:
            return
        if self.shift_ms:
            lines = tuple({k: v + self.shift_ms if k in _TIME_KEYS else v for k, v in line.items()}
                          for line in lines)
        self.lines += len(lines)
        self._append("".join(_LINE.encode(line) + "\n" for line in lines))

    def write_checkpoint(self, line: dict[str, Any]) -> None:
        """A checkpoint line (console/shell/checkpoint.py: its time is the engine's already)."""
        if self._kept:
            self.lines = 0
            self._append(_LINE.encode(line) + "\n")

    def sync_soon(self) -> None:
        """Have what was written so far reach the disk, on the syncer thread (see above)."""
        if self._sync_error is not None:
            error, self._sync_error = self._sync_error, None
            self._fail(error, "sync")
        if self._fd is None or self._failing is not None:
            return  # no journal, one in memory (tests), or one failing: `retry` syncs it
        with self._lock:
            self._wanted = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._syncer, name="journal-sync", daemon=True)
                self._thread.start()
            else:
                self._wake.notify()

    def sync_now(self) -> bool:
        """Sync in this thread, waiting for the disk (at start, before the game goes on);
        whether everything written is on the disk now."""
        if self._memory or not self._kept:
            return True
        if not self._drain() or self._fd is None:
            return False
        try:
            os.fdatasync(self._fd)
        except OSError as exc:
            self._fail(exc, "sync")
            return False
        self.syncs += 1
        return True

    def commit(self) -> None:
        """At start, once the first lines are written: sync them and make this file the journal
        to resume (`JournalFiles.commit`). A journal failing now does this once it recovers
        (`retry`)."""
        if not self.sync_now() or self._committed:
            return
        assert self._files is not None
        try:
            self._files.commit()
        except OSError as exc:
            self._fail(exc, "name")
            return
        self._committed = True

    def retry(self, now_ns: int) -> None:
        """A failing journal tries the disk again, at most every RETRY_S (see the module
        docstring); a healthy one does nothing."""
        if self._failing is None and self._sync_error is None:
            return
        if self._tried_ns is not None and now_ns - self._tried_ns < RETRY_S * NS_PER_S:
            return
        self._tried_ns = now_ns
        self._sync_error = None
        if self._fd is None and not self._open_file():
            return
        self.commit()  # written, synced, named: or still failing, said already
        if self._committed and self._failing is not None and self.sync_now():
            self._recovered()

    def close(self) -> None:
        """Sync what is left, stop the syncer thread and close the file."""
        self._stop_syncer()
        if not self._kept:
            return
        if self._pending:
            self.commit()  # a last try: what still waits now is lost with the process
        elif self._fd is not None and self._sync_error is None:
            with contextlib.suppress(OSError):
                os.fdatasync(self._fd)
        if self._pending:
            lines = self._pending.count(b"\n")
            self._report_error("journal", f"stopping with {lines} journal lines not written "
                                          f"({self._failing})")
        self._kept = False
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
        elif self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
        self._fd = None

    # ------------------------------------------------------------------ internals

    def _append(self, text: str) -> None:
        if self._memory:
            assert self._file is not None
            self._file.write(text)
            return
        self._pending += text.encode("utf-8")
        if self._failing is None:
            self._drain()

    def _drain(self) -> bool:
        """Hand the waiting bytes to the kernel (each exactly once, in order: a short write
        leaves the rest waiting); False, said, if the disk does not take them."""
        fd = self._fd
        if fd is None:
            return not self._pending and self._files is None
        try:
            while self._pending:
                written = os.write(fd, self._pending)
                del self._pending[:written]
        except OSError as exc:
            self._fail(exc, "write")
            return False
        return True

    def _open_file(self) -> bool:
        assert self._files is not None
        try:
            self._fd = self._files.open()
        except OSError as exc:
            self._fail(exc, "create")
            return False
        return True

    def _fail(self, exc: OSError, doing: str) -> None:
        if self._failing is not None:
            return  # said once; `retry` keeps trying
        why = exc.strerror or str(exc)
        self._failing = (f"cannot {doing} the journal {self.name!r} ({why}); the game goes on and "
                         f"its lines wait in memory until the disk takes them")
        if self._on_state is not None:
            self._on_state(FAILING, self._failing)
        else:
            self._report_error("journal", self._failing)

    def _recovered(self) -> None:
        self._failing = None
        if self._on_state is not None:
            self._on_state(WRITING, "the journal is written again: every line that waited reached the disk")

    def _syncer(self) -> None:
        fd = self._fd
        assert fd is not None
        while True:
            with self._lock:
                while not self._wanted and not self._closing:
                    self._wake.wait()
                if self._closing:
                    return
                self._wanted = False
            try:
                os.fdatasync(fd)
            except OSError as exc:
                self._sync_error = exc  # reported by the next sync_soon, in the loop's thread
                continue
            self.syncs += 1

    def _stop_syncer(self) -> None:
        with self._lock:
            thread, self._thread = self._thread, None
            self._closing = True
            self._wake.notify()
        if thread is not None:
            thread.join()  # an fdatasync in flight finishes before the fd is closed
        self._closing = False


def _fileno(file: TextIO | None) -> int | None:
    """The descriptor to sync; None for a journal with none (an in-memory one in tests)."""
    if file is None:
        return None
    try:
        return file.fileno()
    except (OSError, io.UnsupportedOperation, AttributeError):
        return None
