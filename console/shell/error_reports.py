"""Problem reports, rate-limited per source of problems.

Contract: `ErrorReports.report(source, message)` shows a problem at once (through `show`) unless
that source has already had `per_second` shown in the current second; those are counted and
shown as one line when their second is over. A buggy tablet or a noisy line must not drown
the decisions on the displays. Messages are cut to `max_chars` (they may echo a client's input).
"""

from __future__ import annotations

from collections.abc import Callable

from console.shell.timers import Timers
from drivers.report_limit import ReportLimit

__all__ = ["ErrorReports", "shortened"]

Show = Callable[[str, str, int], None]  # (source, message, now)


def shortened(text: str, limit: int = 200) -> str:
    """`text`, cut to `limit` characters with a mark that says so (it may echo a client's input)."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


class ErrorReports:
    """See the module docstring."""

    def __init__(self, show: Show, clock: Callable[[], int], *, per_second: int, max_chars: int) -> None:
        self._show, self._clock = show, clock
        self._per_second, self._max_chars = per_second, max_chars
        self._limits: dict[str, ReportLimit] = {}
        self._timers = Timers()

    def report(self, source: str, message: str) -> None:
        limit = self._limits.setdefault(source, ReportLimit(self._per_second))
        now = self._clock()
        if limit.admit(now):
            self._show(source, shortened(message, self._max_chars), now)
            return
        due = limit.count_due_ns()
        if limit.held == 1 and due is not None:  # (driven by hand: no timer, nothing shown later)
            self._timers.call_later((due - now) / 1e9, self._show_held, source)

    def _show_held(self, source: str) -> None:
        now = self._clock()
        held = self._limits[source].take_held(now, early=True)  # it is due: the timer says so
        if held:
            self._show(source, f"{held} more error(s) from {source} in the last second, "
                               "too many to show one by one (see the log)", now)
