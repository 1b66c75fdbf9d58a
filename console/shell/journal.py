"""The journal: every input the referee was given, one JSON line each, for `replay`.

Contract: `Journal(file, report_error)`; `write(line)` appends one line and flushes it. A
journal that cannot be written (disk full, card pulled) is closed and dropped with one
error report: the game never waits on it or loses an input, and the file replays up to there.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any, TextIO

__all__ = ["Journal"]


class Journal:
    """See the module docstring."""

    def __init__(self, file: TextIO | None, report_error: Callable[[str, str], None]) -> None:
        self._file = file
        self._report_error = report_error

    @property
    def open(self) -> bool:
        return self._file is not None

    def write(self, line: dict[str, Any]) -> None:
        file = self._file
        if file is None:  # none configured, or dropped after a failed write
            return
        try:
            file.write(json.dumps(line, ensure_ascii=False) + "\n")
            file.flush()
        except OSError as exc:
            self._file = None
            with contextlib.suppress(OSError):
                file.close()
            why = exc.strerror or str(exc)
            self._report_error("journal", f"cannot write the journal {file.name!r} ({why}); "
                                          "the game goes on without it (it replays only up to here)")
