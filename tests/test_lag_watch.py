"""The lag watch: a tick at least every LAG_TICK_S, and a stream of inputs ticking it instead
of its timer, so that a console reading the top at 1 kHz is never woken by the watch itself
(console/shell/lag_watch.py; docs/performance.md)."""

from __future__ import annotations

import asyncio
import itertools
import logging

import pytest

from console.engine.model import NS_PER_MS
from console.shell.lag_watch import INPUT_TICK_NS, LAG_TICK_S, LagWatch
from tests.support.clock import Clock


async def running(watch: LagWatch, ticks: list[int]) -> asyncio.Task[None]:
    task = asyncio.create_task(watch.run(ticks.append))
    await asyncio.sleep(0)  # the watch starts and arms its timer
    return task


async def stopped(task: asyncio.Task[None]) -> None:
    """Cancel the watch's task, as run's end does, and see it end by the cancellation."""
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_inputs_tick_the_watch_and_put_its_timer_off() -> None:
    clock, ticks = Clock(), list[int]()
    watch = LagWatch(clock)
    task = await running(watch, ticks)
    started = clock.now
    first_due = watch.timer_due
    assert first_due is not None
    clock.now += INPUT_TICK_NS - 1
    watch.noted(clock.now)  # too soon after the tick: nothing
    assert ticks == [] and watch.ticked_at == started and watch.timer_due == first_due
    clock.now += 1
    watch.noted(clock.now)
    assert ticks == [clock.now]
    assert (watch.alive_at, watch.ticked_at) == (started, clock.now)
    second_due = watch.timer_due
    assert second_due is not None and second_due > first_due  # put off from this tick
    await stopped(task)
    assert watch.timer_due is None and watch.ticked_at is None


@pytest.mark.parametrize("period_ms", [10, 20, 40])
async def test_a_stream_of_bursts_ticks_the_watch_before_its_timer_would(period_ms: int) -> None:
    # The box's bursts every 10, 20 or 40 ms, each read up to 4 ms late or early: an input always
    # ticks the watch within LAG_TICK_S of the tick before, so its timer never has to.
    clock, ticks = Clock(), list[int]()
    watch = LagWatch(clock)
    task = await running(watch, ticks)
    ticks.append(clock.now)  # the watch's first tick, when it started
    start = clock.now
    for i in range(1, 200):
        jitter_ms = (4, -4, 0)[i % 3]
        clock.now = start + (i * period_ms + jitter_ms) * NS_PER_MS
        watch.noted(clock.now)
    gaps = [later - earlier for earlier, later in itertools.pairwise(ticks)]
    assert len(ticks) > 30 and max(gaps) < round(LAG_TICK_S * 1e9)
    await stopped(task)


async def test_inputs_read_right_after_a_hold_are_all_dated_before_it() -> None:
    # What waited through a hold is read within HOLD_NS (20 ms) of the tick after it: none of
    # those reads may tick again, or the last ones would be dated after the hold they waited in.
    clock, ticks = Clock(), list[int]()
    watch = LagWatch(clock)
    task = await running(watch, ticks)
    before = clock.now
    clock.now += 500 * NS_PER_MS
    watch.noted(clock.now)  # the tick after the hold
    for offset_ms in (1, 5, 10, 15, 20):
        read = clock.now + offset_ms * NS_PER_MS
        watch.noted(read)
        assert watch.read_time(read) == (before, before), offset_ms
    await stopped(task)


async def test_without_inputs_the_timer_ticks() -> None:
    clock, ticks = Clock(), list[int]()
    watch = LagWatch(clock)
    task = await running(watch, ticks)
    clock.now += round(LAG_TICK_S * 1e9)
    await asyncio.sleep(LAG_TICK_S * 3)
    assert ticks and ticks[0] == clock.now
    await stopped(task)


async def test_an_input_read_after_a_hold_ticks_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    clock, ticks = Clock(), list[int]()
    watch = LagWatch(clock)
    task = await running(watch, ticks)
    before = clock.now
    clock.now += 500 * NS_PER_MS  # the console was away for half a second
    with caplog.at_level(logging.WARNING, logger="chgk.console"):
        watch.noted(clock.now)
    assert "held up for 450 ms" in caplog.text
    # A press read now may have waited through the hold: dated at the last sign of life before it.
    assert watch.read_time(clock.now) == (before, before)
    await stopped(task)


def test_a_watch_that_does_not_run_ignores_inputs() -> None:
    clock = Clock()
    watch = LagWatch(clock)
    clock.now += 10 * INPUT_TICK_NS
    watch.noted(clock.now)
    assert watch.ticked_at is None and watch.timer_due is None
    assert watch.read_time(clock.now) == (clock.now, None)
