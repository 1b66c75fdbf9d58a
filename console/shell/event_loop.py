"""The daemon's one event loop: uvloop where it is installed, else asyncio's own."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_loop"]


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
