"""The serial button box on its real port, through the console's own driver (drivers.mcu_serial.McuLink).

Without anyone at the table: the box answers HELLO, its clock is synchronised (a drift a real
oscillator can have, round trips a USB serial link has, every HEARTBEAT mapped to a moment just
before it arrived and at most 100 ms after the previous one: PROTOCOL.md 5.4), the line is clean
(no bad or lost frames), no pad is pressed by itself (a stuck or shorted button), and LAMPS frames
are taken without the link failing. The protocol gives no way to read the lamps back (HEARTBEAT
carries the held pads only), so whether they light is checked by the interactive test: it lights
one pad's lamp and asks for the lit pad to be pressed.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import re
import statistics
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from drivers.mcu_serial import McuLink, PadEdge, Watermark
from tests.conftest import until
from tests.hardware import devices

FIT_SAMPLES = 8  # ClockModel's min_fit_samples: from then on the mapping is a fitted line
MAX_DRIFT_PPM = 5000  # a crystal is within ±100 ppm, a Nano's ceramic resonator within ±0.5 %
MAX_HALF_RTT_NS = 5_000_000  # USB serial round trips take 1-4 ms; 10 ms is a sick link
# A heartbeat is received after it was stamped (a little slack for the mapping's error), and
# within a USB frame or two of it.
EARLIEST_NS = -2_000_000
LATEST_NS = 20_000_000
HEARTBEAT_GAP_NS = 110_000_000  # PROTOCOL.md 5.4: at least every 100 ms (device time)


@dataclass
class Box:
    link: McuLink
    status: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    edges: list[tuple[PadEdge, int]] = field(default_factory=list)  # (edge, arrival ns)
    # (mapped heartbeat ns, arrival ns, clock samples then)
    marks: list[tuple[int, int, int]] = field(default_factory=list)


@asynccontextmanager
async def box() -> AsyncIterator[Box]:
    wanted = devices.button_box()
    if not Path(wanted.value).exists():  # noqa: ASYNC240 - a stat before anything runs
        wanted.absent("no such device: is the button box plugged in (and the udev rule installed)?")
    link: McuLink

    def edge(e: PadEdge) -> None:
        rig.edges.append((e, time.monotonic_ns()))

    def mark(watermark: Watermark) -> None:
        rig.marks.append((watermark.ns, time.monotonic_ns(), link.clock.sample_count))

    # Pings ten times a second: the fit (8 samples) is there within a second.
    link = McuLink(wanted.value, name="box", on_edge=edge, on_watermark=mark, ping_interval=0.1,
                   on_status=lambda state, detail: rig.status.append((state, detail)),
                   on_error=lambda message: rig.errors.append(message))
    rig = Box(link)
    task = asyncio.create_task(link.run())
    try:
        try:
            # A Nano resets when its port opens and its bootloader waits ~1.5 s first.
            await until(lambda: link.connected or any(s != "connected" for s, _ in rig.status), within=8)
        except TimeoutError:
            pytest.fail(f"{wanted.value}: no HELLO within 8 s (is it the button box, with the firmware "
                        f"flashed? see README); status: {rig.status}")
        if not link.connected:
            pytest.fail(f"{wanted.value}: {rig.status[-1][1]} (is the console running? "
                        f"sudo systemctl stop chgk-console)")
        yield rig
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_the_box_answers_hello_keeps_time_and_takes_lamps() -> None:
    async with box() as rig:
        link = rig.link
        assert rig.status[0][0] == "connected" and "protocol" in rig.status[0][1], rig.status
        await until(lambda: link.clock.sample_count >= 2 * FIT_SAMPLES, within=10)
        await asyncio.sleep(1.5)  # heartbeats mapped by the fitted line

        drift = link.clock.drift_ppm
        assert drift != 0.0, "no drift fitted: the box's timer runs more than 1 % off the host's"
        assert abs(drift) < MAX_DRIFT_PPM, f"drift {drift:.0f} ppm: not a real oscillator"
        assert link.clock.uncertainty_ns <= MAX_HALF_RTT_NS, \
            f"best round trip {2 * link.clock.uncertainty_ns / 1e6:.1f} ms: a slow or congested link"

        fitted = [(ns, arrival) for ns, arrival, samples in rig.marks if samples >= FIT_SAMPLES]
        assert len(fitted) >= 10, f"only {len(fitted)} heartbeats in 1.5 s (PROTOCOL.md 5.4: every 100 ms)"
        residuals = [arrival - ns for ns, arrival in fitted]
        assert min(residuals) >= EARLIEST_NS, \
            f"a heartbeat mapped {-min(residuals) / 1e6:.1f} ms after it arrived: the clock mapping is off"
        assert max(residuals) <= LATEST_NS, \
            f"a heartbeat arrived {max(residuals) / 1e6:.1f} ms after its stamp (median " \
            f"{statistics.median(residuals) / 1e6:.2f} ms)"
        gaps = [b - a for (a, _), (b, _) in itertools.pairwise(fitted)]
        assert max(gaps) <= HEARTBEAT_GAP_NS, f"heartbeats {max(gaps) / 1e6:.0f} ms apart"

        for on, blink in ((0b0001, 0), (0b0010, 0b0100), (0xFFFF, 0), (0, 0xFFFF), (0, 0)):
            link.set_lamps(on, blink)
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.3)
        assert link.connected, rig.status

        assert not rig.errors, rig.errors
        assert (link.stats.errors, link.stats.lost_frames) == (0, 0)
        assert not rig.edges, f"pads changed with nobody at the table (stuck or shorted?): {rig.edges}"
        assert link.stats.reconnects == 0 and rig.status[-1][0] == "connected"


async def test_a_press_on_the_lit_pad(ask: Callable[[str], None]) -> None:
    """Interactive: one random pad's lamp is lit; the person at the table presses the lit pad.
    Checks the lamp (they can only find the pad by it), the press and its time."""
    async with box() as rig:
        match = re.search(r"(\d+) pads", rig.status[0][1])
        pads = int(match.group(1)) if match else 1
        pad = random.randrange(pads)
        rig.link.set_lamps(1 << pad, 0)
        ask(f"Press the button box pad whose lamp is lit (one of {pads}), then let go; 15 s")
        await until(lambda: [e for e, _ in rig.edges if not e.pressed], within=15)
        rig.link.set_lamps(0, 0)
        (press, arrived), (release, _) = rig.edges[0], rig.edges[-1]
        assert press.pressed and press.pads == (pad,), \
            f"pad {press.pads} pressed, pad {pad} was lit: a lamp or a pad is wired to another"
        assert not release.pressed and release.pads == (pad,)
        assert EARLIEST_NS <= arrived - press.at_ns <= LATEST_NS, \
            f"the press arrived {(arrived - press.at_ns) / 1e6:.1f} ms after its stamp"
