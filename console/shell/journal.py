"""The journal: every input the referee was given, one JSON line each, for `replay` and resume.

Contract: `Journal(file, report_error, shift_ns=0)`; `write(line)` appends one line and
flushes it to the kernel (a killed daemon loses nothing written); `sync_soon()` asks for the
lines written so far to reach the disk (a power cut loses nothing synced); `close()` syncs
what is left and closes the file. A journal that cannot be written or synced (disk full,
card pulled) is closed and dropped with one error report: the game never waits on it or
loses an input, and the file replays up to there.

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
from console.engine.model import NS_PER_MS, Output

__all__ = ["Journal", "clock_line", "decides"]

_TIME_KEYS = ("at_ms", "arrive_ms", "clock_ms")
# What json.dumps(line, ensure_ascii=False) writes, with its encoder built once: json.dumps
# builds a new one for every call with an argument, and this is on the press path.
_LINE = json.JSONEncoder(ensure_ascii=False)


def decides(outputs: Iterable[Output]) -> bool:
    """Whether the outputs hold a decision worth a sync: any event but the top's live angle
    (30 a second while it spins; the stop it leads to is an event of its own)."""
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

    def __init__(self, file: TextIO | None, report_error: Callable[[str, str], None],
                 *, shift_ns: int = 0) -> None:
        self._file = file
        self._report_error = report_error
        self.shift_ms = shift_ns / NS_PER_MS
        self._fd = _fileno(file)
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._wanted = False  # a sync was asked for and has not started yet
        self._closing = False
        self._sync_error: OSError | None = None  # from the syncer thread, reported by the loop's thread
        self._thread: threading.Thread | None = None
        self.syncs = 0  # completed, for tests and the benchmark

    @property
    def open(self) -> bool:
        return self._file is not None

    @property
    def name(self) -> str:
        return str(getattr(self._file, "name", ""))

    def write(self, *lines: dict[str, Any]) -> None:
        """Append `lines` in one write to the file (an MCU scan's press and watermark arrive
        together: each write to the file system costs the press path tens of µs)."""
        file = self._file
        if file is None:  # none configured, or dropped after a failed write
            return
        if self.shift_ms:
            lines = tuple({k: v + self.shift_ms if k in _TIME_KEYS else v for k, v in line.items()}
                          for line in lines)
        try:
            file.write("".join(_LINE.encode(line) + "\n" for line in lines))
            file.flush()
        except OSError as exc:
            self._drop(exc)

    def write_text(self, lines: Iterable[str]) -> None:
        """Lines already in the journal's format and timebase (a resumed journal's, copied)."""
        file = self._file
        if file is None:
            return
        try:
            for text in lines:
                file.write(text.rstrip("\n") + "\n")
            file.flush()
        except OSError as exc:
            self._drop(exc)

    def sync_soon(self) -> None:
        """Have what was written so far reach the disk, on the syncer thread (see above)."""
        if self._sync_error is not None:
            error, self._sync_error = self._sync_error, None
            self._drop(error, "sync")
            return
        if self._file is None or self._fd is None:
            return  # no journal, or one in memory (tests)
        with self._lock:
            self._wanted = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._syncer, name="journal-sync", daemon=True)
                self._thread.start()
            else:
                self._wake.notify()

    def sync_now(self) -> None:
        """Sync in this thread, waiting for the disk (at start, before the game goes on)."""
        if self._file is None or self._fd is None:
            return
        try:
            os.fdatasync(self._fd)
            self.syncs += 1
        except OSError as exc:
            self._drop(exc, "sync")

    def close(self) -> None:
        """Sync what is left, stop the syncer thread and close the file."""
        file, self._file = self._file, None
        self._stop_syncer()
        if file is None:
            return
        if self._fd is not None and self._sync_error is None:
            with contextlib.suppress(OSError):
                os.fdatasync(self._fd)
        with contextlib.suppress(OSError):
            file.close()

    # ------------------------------------------------------------------ internals

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
                return
            self.syncs += 1

    def _stop_syncer(self) -> None:
        with self._lock:
            thread, self._thread = self._thread, None
            self._closing = True
            self._wake.notify()
        if thread is not None:
            thread.join()  # an fdatasync in flight finishes before the fd is closed

    def _drop(self, exc: OSError, doing: str = "write") -> None:
        file, self._file = self._file, None
        self._stop_syncer()
        if file is not None:
            with contextlib.suppress(OSError):
                file.close()
        why = exc.strerror or str(exc)
        name = getattr(file, "name", "")
        self._report_error("journal", f"cannot {doing} the journal {name!r} ({why}); "
                                      "the game goes on without it (it replays only up to here)")


def _fileno(file: TextIO | None) -> int | None:
    """The descriptor to sync; None for a journal with none (an in-memory one in tests)."""
    if file is None:
        return None
    try:
        return file.fileno()
    except (OSError, io.UnsupportedOperation, AttributeError):
        return None
