"""The console's sign of life: a tick at least every LAG_TICK_S while its loop runs, and what it bounds.

Contract: `LagWatch(clock)`; `run(on_tick)` ticks until cancelled (logging how late the loop
came when it was held up, calling `on_tick(now)` each time). `noted(now)`: the console read an
input at `now`, itself a sign of life: once INPUT_TICK_NS have passed since the latest tick it
ticks there, and the timer is put off, so a console reading a steady stream (the top's angle
at 1 kHz) is never woken by the watch itself (docs/performance.md). `alive_at` is the tick
before the latest (a host command cannot have been waiting unread from before it:
console/shell/commands.py `command_time`); `read_time(received)` dates an input of a source
with no clock of its own; `timer_due` is when the timer would tick.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from console.engine.model import NS_PER_MS
from console.shell import commands
from console.shell.deadlines import HOLD_NS

__all__ = ["INPUT_TICK_NS", "LAG_TICK_S", "LagWatch"]

log = logging.getLogger("chgk.console")

LAG_TICK_S = 0.05  # the longest the console goes between ticks while its loop runs
TICK_NS = round(LAG_TICK_S * 1e9)
# An input read this long after the latest tick is a tick: early enough that a stream of
# inputs every 20 or 40 ms (the box's bursts of the top's readings) always has one between this and
# the timer (LAG_TICK_S), a few ms late or not, so the stream comes first; and later than a
# hold (HOLD_NS), so that what waited through a hold is read while the tick after the hold is
# still the latest (see `alive_at`). (At 40 ms, half the ticks of a 20 ms stream were the
# timer's, each a wake-up of its own.)
INPUT_TICK_NS = 30 * NS_PER_MS


class LagWatch:
    """See the module docstring."""

    def __init__(self, clock: Callable[[], int]) -> None:
        self._clock = clock
        self.alive_at = clock()
        self.ticked_at: int | None = None  # the latest tick (None: the watch does not run)
        self._on_tick: Callable[[int], None] = _nothing
        self._timer: asyncio.TimerHandle | None = None

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
        return commands.read_time(received, self.ticked_at, self.alive_at, tick_ns=TICK_NS, hold_ns=HOLD_NS)

    @property
    def timer_due(self) -> float | None:
        """When (the event loop's time) the watch's timer would tick if no input came first
        (None while the watch does not run)."""
        return None if self._timer is None else self._timer.when()

    def noted(self, now: int) -> None:
        """An input was read at `now`: a tick if INPUT_TICK_NS have passed since the latest
        (nothing while the watch does not run)."""
        ticked = self.ticked_at
        if ticked is not None and now - ticked >= INPUT_TICK_NS:
            self._tick(now)

    async def run(self, on_tick: Callable[[int], None]) -> None:
        """Tick at least every LAG_TICK_S, and log how late the loop came when it was held up.
        A command's time is bounded by the tick before the latest: after a hold that is the
        last tick before it, for as long as what waited meanwhile is being read."""
        self._on_tick = on_tick
        self.ticked_at = self._clock()
        self._arm()
        try:
            await asyncio.get_running_loop().create_future()  # until cancelled
        finally:
            if self._timer is not None:
                self._timer.cancel()
            self._timer, self.ticked_at, self._on_tick = None, None, _nothing

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(LAG_TICK_S, self._fired)

    def _fired(self) -> None:
        self._timer = None
        self._tick(self._clock())

    def _tick(self, now: int) -> None:
        last = self.ticked_at if self.ticked_at is not None else now
        late = now - last - TICK_NS
        if late > HOLD_NS:
            log.warning("the console's loop was held up for %.0f ms", late / NS_PER_MS)
        self.alive_at, self.ticked_at = last, now
        self._arm()
        self._on_tick(now)


def _nothing(now: int) -> None:
    """What a tick does before the watch runs."""
