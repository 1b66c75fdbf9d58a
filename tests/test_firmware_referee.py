"""The «Своя игра» referee judging presses made on the simulated chip: the real firmware image in
simavr (firmware/sim/box_sim, its UART on a pty, its pad pins driven at exact simulated
cycles), the console's real serial driver and clock sync (PING/PONG), and the Console with a
real mosquitto, as the daemon runs them.

Photo finishes: two pads pressed 40 µs apart (twice the chip's 20 µs timer resolution) are
ordered by the chip's stamps, whichever pad's number is lower; two pads pressed in the same
instant land in one scan of the pin-change interrupt (one port read) and are a tie, broken by
the tie policy (pad order here); pads a few µs apart are a tie exactly when the chip stamped
them in the same timer tick. Skipped like tests/test_firmware_sim.py where the toolchain or
simavr is missing.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from console.engine.events import Event
from console.engine.model import HostAction, Press, Watermark
from console.engine.svoya.events import IgnoreReason, PressIgnored, QuestionEnded, SignalAccepted
from console.engine.svoya.rules import TiePolicy
from console.games import config_from_dict
from console.shell.runtime import Console
from console.sources.mcu import add_mcu
from tests.conftest import Broker, until
from tests.support.firmware_sim import (
    CPU_HZ,
    DEBOUNCE_US,
    RESOLUTION_US,
    Chip,
    built,
    chip,
    needs_firmware_sim,
)

__all__ = ["built", "chip"]  # the chip's fixtures, from tests/support/firmware_sim.py
pytestmark = needs_firmware_sim

PLAYERS = 4  # p1..p4 on the box's pads 0..3


@contextlib.asynccontextmanager
async def judged(chip: Chip, broker: Broker) -> AsyncIterator[tuple[Console, list[Event], list[int]]]:
    config = config_from_dict({
        "console": {"node": "t1", "journal": ""},
        "game": {"tie_policy": "pad_order"},
        "players": [{"id": f"p{i + 1}", "name": f"Игрок {i + 1}", "pad": f"box:{i}"} for i in range(PLAYERS)],
        # The chip's own HELLO says 20 µs; a press is on the line within a few ms.
        "sources": {"box": {"kind": "serial_mcu", "port": chip.port, "resolution_us": RESOLUTION_US}},
        "sound": {"enabled": False},
    }, "test")
    console = Console(config)
    marks: list[int] = []  # the chip's watermarks (heartbeats, presses) on the host clock
    to_console = console.sources.scan

    def scan(presses: list[Press], mark: Watermark) -> None:
        marks.append(mark.up_to)
        to_console(presses, mark)

    console.sources.scan = scan  # type: ignore[method-assign]  # every scan and heartbeat of the link
    link = add_mcu(console.sources, "box", chip.port, 115200)
    events: list[Event] = []
    console.watchers.append(events.append)
    task = asyncio.create_task(console.run(broker.host, broker.port))
    try:
        await until(lambda: link.connected and link.clock.ready, within=10.0)
        yield console, events, marks
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def fight(console: Console, events: list[Event], marks: list[int], chip: Chip,
                *presses: tuple[int, int]) -> tuple[SignalAccepted, dict[str, int]]:
    """A question; the pads pressed (pad, µs after the first); the decision and every press's
    time as the referee saw it (a later press is ignored: the answerer is chosen); the pads
    released and the question closed."""
    announced = console.clock()
    console.host(HostAction.NEXT, announced)
    start = len(events)

    def stamps() -> dict[str, int]:
        seen = {r.player: r.at_ns for e in events[start:] if isinstance(e, SignalAccepted) for r in e.presses}
        seen.update((e.player, e.at_ns) for e in events[start:]
                    if isinstance(e, PressIgnored) and e.reason is IgnoreReason.ANSWERER_CHOSEN)
        return seen

    # simavr runs the chip behind the host's clock (tens of ms on a loaded machine) and a pin
    # driven now is stamped at the chip's now: pressed at once, it would fall before the
    # announcement (a false start, or the last question's). Press once the chip has said (a
    # heartbeat) that its time is past the announcement, as a player's press would be.
    await until(lambda: marks and marks[-1] > announced, within=5.0)
    chip.drive(*((pad, us, 0) for pad, us in presses))
    await until(lambda: len(stamps()) == len(presses), within=5.0)
    decision = next(e for e in events[start:] if isinstance(e, SignalAccepted))
    await asyncio.sleep(2 * DEBOUNCE_US / 1e6)
    chip.drive(*((pad, 0, 1) for pad, _ in presses))
    console.host(HostAction.CORRECT)
    assert isinstance(events[-1], QuestionEnded) or any(isinstance(e, QuestionEnded) for e in events[-3:])
    await asyncio.sleep(2 * DEBOUNCE_US / 1e6)  # the releases are through before the next fight
    return decision, stamps()


async def test_photo_finish_40_us_apart_the_earlier_wins(chip: Chip, mosquitto: Broker) -> None:
    """Seed 004 App.5: the first signal takes the turn. Pad 3 lands 40 µs before pad 1: pad 3's
    player wins, though pad order (the tie policy) would prefer pad 1."""
    async with judged(chip, mosquitto) as (console, events, marks):
        decision, at = await fight(console, events, marks, chip, (3, 0), (1, 40))
        assert (decision.player, decision.tie) == ("p4", False)
        # The chip's stamps, mapped to the host clock, keep the 40 µs within its resolution.
        assert abs((at["p2"] - at["p4"]) / 1000 - 40) <= RESOLUTION_US
        (_, _, c3), (_, _, c1) = chip.edge_cycles(2)
        assert (c1 - c3) * 1_000_000 / CPU_HZ == 40
        # And the other way round: pad 1 first.
        decision, at = await fight(console, events, marks, chip, (1, 0), (3, 40))
        assert (decision.player, decision.tie) == ("p2", False)
        assert abs((at["p4"] - at["p2"]) / 1000 - 40) <= RESOLUTION_US


async def test_pressed_in_one_instant_is_a_tie_by_the_policy(chip: Chip, mosquitto: Broker) -> None:
    """Seed 004 App.5 with the console's tie rule: presses the source cannot tell apart (one
    scan of the port) are a tie, broken by the tie policy: pad order gives pad 0's player."""
    async with judged(chip, mosquitto) as (console, events, marks):
        decision, at = await fight(console, events, marks, chip, (2, 0), (0, 0))
        assert decision.tie and decision.tie_policy is TiePolicy.PAD_ORDER
        assert decision.player == "p1"
        assert set(decision.tied or ()) == {"p1", "p3"}
        assert at["p1"] == at["p3"]


@pytest.mark.parametrize("apart_us", [4, 12])
async def test_a_few_us_apart_is_a_tie_exactly_within_one_timer_tick(
        chip: Chip, mosquitto: Broker, apart_us: int) -> None:
    """Closer than the resolution: the referee can order them only if the chip's timer ticked
    between the two; then the earlier wins, else it is a tie (pad order gives pad 0)."""
    async with judged(chip, mosquitto) as (console, events, marks):
        for _ in range(3):  # the presses fall at different phases of the chip's 20 µs tick
            decision, at = await fight(console, events, marks, chip, (3, 0), (0, apart_us))
            if at["p4"] == at["p1"]:
                assert decision.tie and decision.player == "p1"
            else:
                assert at["p4"] < at["p1"]
                assert not decision.tie and decision.player == "p4"
