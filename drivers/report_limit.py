"""How often one source of problems is reported one by one.

A noisy serial line yields a bad frame every few bytes, a buggy tablet may send thousands of
bad commands a second: one error event each would crowd the game's decisions out of the
displays' stream and the log. A `ReportLimit` lets `per_second` reports through in each second
and counts the rest, to be reported as one count once that second is over.

Pure: the caller passes the time (host monotonic ns) and decides how to report.
"""

from __future__ import annotations

from dataclasses import dataclass

NS_PER_S = 1_000_000_000


@dataclass
class ReportLimit:
    per_second: int
    held: int = 0  # reports not shown since the last count was taken
    _window_ns: int | None = None  # start of the current second of reports
    _shown: int = 0

    def admit(self, now_ns: int) -> bool:
        """True if a report at `now_ns` may be shown; otherwise it is counted in `held`."""
        if self._window_ns is None or now_ns - self._window_ns >= NS_PER_S:
            self._window_ns, self._shown = now_ns, 0
        if self._shown < self.per_second:
            self._shown += 1
            return True
        self.held += 1
        return False

    def count_due_ns(self) -> int | None:
        """When the held count should be reported (the end of its second), or None."""
        if not self.held or self._window_ns is None:
            return None
        return self._window_ns + NS_PER_S

    def take_held(self, now_ns: int, *, early: bool = False) -> int:
        """The held count if its second is over (or `early`: its source is going away), and
        start afresh, the count's own report being the first of a new second; else 0."""
        due = self.count_due_ns()
        if due is None or (now_ns < due and not early):
            return 0
        held, self.held = self.held, 0
        self._window_ns, self._shown = now_ns, 1
        return held
