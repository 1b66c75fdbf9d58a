"""The real button box firmware image on simavr's ATmega328P, against the console's real
serial driver.

firmware/sim/box_sim runs box.elf in real time with its UART on a pseudo-terminal and its pad
pins driven by the test at exact simulated cycles; :class:`drivers.mcu_serial.McuLink` opens
the pty like the box's USB serial port: handshake, clock sync by PING/PONG, presses stamped
by the chip's timer (photo finishes microseconds apart), releases after the debounce,
heartbeats, lamps.  Skipped with the reason when avr-gcc, make, gcc or simavr's library is
missing (Debian: gcc-avr avr-libc make gcc libsimavr-dev).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

from drivers.mcu_serial import McuLink, PadEdge
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


@dataclass
class Host:
    edges: list[PadEdge] = field(default_factory=list)
    watermarks: list[int] = field(default_factory=list)
    statuses: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    errors_at_connect: int = -1

    def status(self, state: str, detail: str) -> None:
        self.statuses.append((state, detail))
        if state == "connected" and self.errors_at_connect < 0:
            self.errors_at_connect = len(self.errors)


def edges_at_least(host: Host, count: int) -> bool:
    return len(host.edges) >= count


async def until(condition: Callable[[], object], what: str, seconds: float = 3.0) -> None:
    try:
        async with asyncio.timeout(seconds):
            # Polling on purpose: the chip runs in another process.
            while not condition():  # noqa: ASYNC110
                await asyncio.sleep(0.002)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


@contextlib.asynccontextmanager
async def linked(chip: Chip, host: Host, port: str | None = None) -> AsyncIterator[McuLink]:
    # simavr's timer runs tens of % off real time, beyond any crystal: the clock checks of
    # issue 10 would (rightly) distrust it; these tests check the firmware's stamps instead.
    link = McuLink(port or chip.port, on_edge=host.edges.append,
                   on_watermark=lambda mark: host.watermarks.append(mark.ns),
                   on_status=host.status, on_error=host.errors.append, ping_interval=0.2,
                   check_clock=False)
    task = asyncio.create_task(link.run())
    try:
        await until(lambda: link.connected and link.clock.ready, "handshake and clock sync")
        yield link
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_handshake_photo_finish_release_heartbeat_and_lamps(chip: Chip) -> None:
    host = Host()
    async with linked(chip, host) as link:
        state, detail = host.statuses[0]
        assert state == "connected"
        assert "'chgk-box 1.2.0'" in detail and "protocol 2, 6 pads" in detail
        assert f"timer resolution {RESOLUTION_US} µs" in detail

        # Photo finish: pad 4 lands 40 us after pad 2 (more than the resolution apart).
        chip.drive((2, 0, 0), (4, 40, 0))
        await until(lambda: len(host.edges) >= 2, "two presses")
        first, second = host.edges[:2]
        assert (first.pads, first.pressed) == ((2,), True)
        assert (second.pads, second.pressed) == ((4,), True)
        assert second.seq == first.seq + 1
        (_, _, c2), (_, _, c4) = chip.edge_cycles(2)
        true_us = (c4 - c2) * 1_000_000 / CPU_HZ
        assert true_us == 40
        assert abs((second.mcu_us - first.mcu_us) - true_us) <= RESOLUTION_US
        # On host time (through the clock model fitted from PING/PONG) the gap is the same.
        assert abs((second.at_ns - first.at_ns) / 1000 - (second.mcu_us - first.mcu_us)) < 5
        # Every press is vouched for by a watermark right away, then heartbeats move it on.
        assert host.watermarks[-1] >= second.at_ns
        mark = host.watermarks[-1]
        await until(lambda: host.watermarks[-1] > mark, "heartbeat watermark")

        # A bounce inside the debounce interval is not reported; the release comes after it.
        await asyncio.sleep(DEBOUNCE_US / 1e6 * 2)  # the presses' own intervals are over
        chip.drive((2, 0, 1), (2, 300, 0), (2, 600, 1), (4, 0, 1))
        await until(lambda: len(host.edges) >= 3, "the releases")
        await asyncio.sleep(0.05)
        releases = host.edges[2:]
        assert all(not e.pressed for e in releases)
        assert sorted(p for e in releases for p in e.pads) == [2, 4]
        chip.edge_cycles(4)

        link.set_lamps(0b000101, 0b010000)
        await until(lambda: 0b000101 in chip.lamps, "lamps 0 and 2 lit")
        await until(lambda: 0b010101 in chip.lamps, "lamp 4 blinking on")
        await until(lambda: chip.lamps[-1] == 0b000101, "lamp 4 blinking off", seconds=1.0)

        # Nothing lost, nothing garbled once connected (bytes the chip sent before the port
        # was opened may arrive torn, like a real line's).
        assert link.stats.lost_frames == 0
        assert host.errors[host.errors_at_connect:] == []


async def test_press_stamps_are_within_the_stated_resolution(chip: Chip) -> None:
    """The chip's stamp of a press minus the simulated time of the edge varies by no more
    than HELLO's timer_resolution_us, wherever the press falls in the firmware's work."""
    host = Host()
    rng = random.Random(8)
    async with linked(chip, host):
        for n in range(1, 31):
            pad = rng.randrange(6)
            after = 5000 + rng.randrange(2000)  # well past the last release's debounce
            # Press and release timed from one simulated instant (5 ms apart however fast the
            # simulator runs on a loaded machine), and the next press only once both came:
            # real-time sleeps let a slow simulator apply a release before its press.
            chip.drive((pad, after, 0), (pad, after + 5000, 1))
            both = functools.partial(edges_at_least, host, 2 * n)
            await until(both, f"press and release {n}", seconds=10.0)
        await until(lambda: sum(e.pressed for e in host.edges) == 30, "30 presses")
    cycles = [c for _, level, c in chip.edge_cycles(60) if level == 0]
    presses = [e for e in host.edges if e.pressed]
    lags = [e.mcu_us - c * 1_000_000 / CPU_HZ for e, c in zip(presses, cycles, strict=True)]
    assert max(lags) - min(lags) <= RESOLUTION_US


def repoint(link: Path, target: str) -> None:
    """Point the stable port name at `target` at once (the host never sees it missing)."""
    tmp = link.with_name(link.name + ".tmp")
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(target)
    tmp.replace(link)


async def test_a_press_during_a_cable_blip_is_asked_for_again(chip: Chip, tmp_path: Path) -> None:
    """Issue 31: the cable out for 0.3 s, the box powered on its own. Pad 1 is pressed 100 ms
    into the blip, pad 3 1.5 s later. The firmware keeps its last 16 frames (PROTOCOL.md 5.9);
    after the reconnect the link asks for what it missed since the last sequence number it
    read, and the press made in the blip comes first, with nothing lost."""
    box = tmp_path / "box"
    repoint(box, chip.port)
    host = Host()
    async with linked(chip, host, str(box)) as link:
        await until(lambda: host.watermarks, "a numbered frame read")
        chip.unplug()
        await until(lambda: host.statuses[-1][0] == "disconnected", "the port lost")
        await asyncio.sleep(0.1)
        chip.drive((1, 0, 0), (1, 30_000, 1))  # pressed 100 ms into the blip, held 30 ms
        await asyncio.sleep(0.2)
        repoint(box, chip.plug())
        await until(lambda: link.connected, "connected again")
        await asyncio.sleep(1.2)
        chip.drive((3, 0, 0))
        await until(lambda: len([e for e in host.edges if e.pressed]) >= 2, "both presses")
        pressed = [e for e in host.edges if e.pressed]
        assert [e.pads for e in pressed] == [(1,), (3,)]
        assert pressed[0].at_ns < pressed[1].at_ns
        assert link.stats.repaired_frames >= 1 and link.stats.lost_frames == 0
