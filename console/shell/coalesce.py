"""Repeated presses of one pad that cannot change a decision are dropped before the referee.

Contract: `PressCoalescer.admit(pad, at)` says whether a press goes to the referee (and the
journal). A chattering or hammered pad sends hundreds of presses a second; in «Своя игра» only
the first press of a pad after anything that could change what it means counts: the referee
places a pad's presses by their own time, and an earlier press of the same pad is at least as
good as a later one (first to signal, App.5; out of the question, before the reset, late and
"answerer chosen" all hold for a later press too, and a host action resets the coalescer).
So a press of a pad within `window_ns` after that pad's previous admitted press is dropped,
until `reset` (every host input). The one case a later press could count where the earlier
did not is a false-start lockout (2 s) ending between them; with a window of 20 ms the first
press after the lockout's end is at most one window late.
"""

from __future__ import annotations

__all__ = ["PressCoalescer"]


class PressCoalescer:
    """See the module docstring."""

    def __init__(self, window_ns: int) -> None:
        self.window_ns = window_ns
        self._last: dict[str, int] = {}
        self.dropped = 0

    def admit(self, pad: str, at: int) -> bool:
        last = self._last.get(pad)
        if last is not None and 0 <= at - last < self.window_ns:
            self.dropped += 1
            return False
        self._last[pad] = at
        return True

    def reset(self) -> None:
        """A host input may change what the next press means: every pad starts afresh."""
        self._last.clear()
