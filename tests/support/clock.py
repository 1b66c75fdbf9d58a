"""The one hand-stepped host clock for a `Console` (or anything that takes a `clock` callable):
the test sets `now` (host monotonic ns); nothing moves by itself."""

from __future__ import annotations

__all__ = ["START_NS", "Clock"]

START_NS = 1_000_000_000_000  # 1 000 s after boot: far from 0, as a Pi's monotonic clock is


class Clock:
    """Returns `now` when called; the test moves it."""

    def __init__(self, now: int = START_NS) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now
