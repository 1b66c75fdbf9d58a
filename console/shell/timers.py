"""The shell's timers: the event loop's when one runs, none when a test drives the console by hand.

Contract: `Timers` is asked at each use, so a console built before its loop starts gets the
loop's timers once it runs. `live` says whether timers fire by themselves; `call_later(delay_s,
fn, *args)` arms one and returns its handle (None without a loop: the caller's deadline is
then fired by hand); `call_soon(fn)` runs `fn` in the loop's next turn, or at once without one;
`start(coroutine_fn)` runs a task in the loop, or returns False without one (the caller does the
work inline). This is the one place the shell asks whether a loop runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

__all__ = ["Timers"]


def _loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # driven by hand (tests of the shell's plumbing, tools)
        return None


class Timers:
    """See the module docstring."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()  # kept: the loop holds tasks weakly

    @property
    def live(self) -> bool:
        return _loop() is not None

    def call_later(self, delay_s: float, fn: Callable[..., object],
                   *args: object) -> asyncio.TimerHandle | None:
        loop = _loop()
        return None if loop is None else loop.call_later(max(0.0, delay_s), fn, *args)

    def call_soon(self, fn: Callable[[], object]) -> None:
        loop = _loop()
        if loop is None:
            fn()
        else:
            loop.call_soon(fn)

    def start(self, work: Callable[[], Coroutine[Any, Any, None]]) -> bool:
        loop = _loop()
        if loop is None:
            return False
        task = loop.create_task(work())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True
