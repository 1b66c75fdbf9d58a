"""The daemon's one event loop: uvloop where it is installed, else asyncio's own.

Contract: `run_loop(main)` runs a coroutine to its exit status; `run_until_stopped(run)` runs
a service's `run()` until SIGTERM or SIGINT cancels it (the organiser's services: the
quartet's tournament, the seasons) and exits 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["run_loop", "run_until_stopped"]


T = TypeVar("T")


def run_loop(main: Coroutine[Any, Any, T]) -> T:
    """Run `main` to its exit status on one event loop.

    uvloop's C loop takes a few tens of microseconds off every press-to-display path on an
    idle core (docs/performance.md); everything works the same on the stock loop.
    """
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


def run_until_stopped(run: Callable[[], Coroutine[Any, Any, None]]) -> int:
    """`run()` on the loop until SIGTERM or SIGINT (the way a service is stopped): status 0."""
    async def serve() -> int:
        task = asyncio.ensure_future(run())
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, task.cancel)
        with contextlib.suppress(asyncio.CancelledError):  # the way it is stopped
            await task
        return 0

    return run_loop(serve())
