"""The console's sign of life: a tick every LAG_TICK_S while its loop runs, and what it bounds.

Contract: `LagWatch(clock)`; `run(on_tick)` ticks until cancelled (logging how late the loop
came when it was held up, calling `on_tick(now)` each time). `alive_at` is the tick before the
latest (a host command cannot have been waiting unread from before it: console/shell/commands.py
`command_time`); `read_time(received)` dates an input of a source with no clock of its own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from console.engine.model import NS_PER_MS
from console.shell import commands
from console.shell.deadlines import HOLD_NS

__all__ = ["LAG_TICK_S", "LagWatch"]

log = logging.getLogger("chgk.console")

LAG_TICK_S = 0.05  # how often the console notes that it runs


class LagWatch:
    """See the module docstring."""

    def __init__(self, clock: Callable[[], int]) -> None:
        self._clock = clock
        self.alive_at = clock()
        self.ticked_at: int | None = None  # the latest tick (None: the watch does not run)

    def read_time(self, received: int) -> tuple[int, int | None]:
        """When an input from a source with no clock of its own (a Buzz! report), read at
        `received`, is taken to have happened, and from when it may be misplaced (None: sure).

        Read while the console runs on time: at `received`. Read just after a hold (the lag
        watch has not ticked for longer than a hold, or its latest tick came after one): it
        may have waited through the hold, so it is dated at the console's last sign of life
        before it, the earliest it can have happened (a press made during a stall is never
        late for the stall), and that instant begins a span whose decisions are not sure
        (`Watermark.lost_from`): they carry ``inputs_lost`` and are put to the host
        (console/shell/commands.py `read_time`)."""
        return commands.read_time(received, self.ticked_at, self.alive_at,
                                  tick_ns=round(LAG_TICK_S * 1e9), hold_ns=HOLD_NS)

    async def run(self, on_tick: Callable[[int], None]) -> None:
        """Note every LAG_TICK_S that the console runs, and log how late the loop came when it
        was held up. A command's time is bounded by the tick before the latest: after a hold
        that is the last tick before it, for as long as what waited meanwhile is being read."""
        tick_ns = round(LAG_TICK_S * 1e9)
        last = self._clock()
        while True:
            await asyncio.sleep(LAG_TICK_S)
            now = self._clock()
            if now - last - tick_ns > HOLD_NS:
                log.warning("the console's loop was held up for %.0f ms", (now - last - tick_ns) / NS_PER_MS)
            self.alive_at, last = last, now
            self.ticked_at = now
            on_tick(now)
