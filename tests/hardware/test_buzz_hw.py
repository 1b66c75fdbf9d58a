"""Sony Buzz! controllers on the real USB bus, through the console's own driver (drivers/buzz.py).

Without anyone at the table: the receiver is found by its USB ids among the hidraw nodes (or is
the node $CHGK_HW_BUZZ names), its poll interval is read from sysfs and is no coarser than the
resolution the source declares to the referee (the driver says so otherwise), lamp reports
(steady and blinking, so several writes) are taken without the node failing, and no handset
presses by itself. hidraw gives no way to read the lamps back (the kernel's LED class devices
keep their own state, not what hidraw wrote): the interactive test lights one handset and asks
for its red button.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import pytest

from drivers.buzz import BuzzLink, find_buzz
from drivers.buzz_report import POLL_INTERVAL_US
from tests.conftest import until
from tests.hardware import devices


@dataclass
class Buzz:
    link: BuzzLink
    status: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    presses: list[tuple[tuple[int, ...], int, int]] = field(default_factory=list)  # (handsets, at, arrival)


@asynccontextmanager
async def buzz() -> AsyncIterator[Buzz]:
    wanted = devices.from_env(devices.BUZZ)
    if wanted is None:
        found = find_buzz()
        if found is None:
            devices.Wanted("a Sony Buzz!", devices.BUZZ, "found by its USB ids", False).absent(
                "none among /sys/class/hidraw (054c:0002 or 054c:1000): is the receiver plugged in?")
        port = ""  # the driver finds it the same way
    else:
        port = wanted.value

    def report(handsets: tuple[int, ...], at: int) -> None:
        if handsets:
            rig.presses.append((handsets, at, time.monotonic_ns()))

    link = BuzzLink(port, on_report=report, retry_interval=0.5,
                    on_status=lambda state, detail: rig.status.append((state, detail)),
                    on_error=lambda message: rig.errors.append(message))
    rig = Buzz(link)
    link.start(asyncio.get_running_loop())
    try:
        if not link.connected:
            if wanted is not None:
                wanted.absent(rig.status[-1][1])
            pytest.fail(f"found in sysfs but not opened: {rig.status[-1][1]}")
        yield rig
    finally:
        link.close()


async def test_the_buzz_is_found_and_takes_its_lamps() -> None:
    async with buzz() as rig:
        link = rig.link
        device = link.device
        assert device is not None
        assert device.interval_us is not None, \
            f"{device.path}: no poll interval in sysfs: is it a USB Buzz! at all?"
        assert device.interval_us <= POLL_INTERVAL_US, \
            f"{device.path} is polled every {device.interval_us} µs, coarser than the declared " \
            f"{POLL_INTERVAL_US} µs"
        assert rig.status == [("connected", rig.status[0][1])] and "polled every" in rig.status[0][1]

        for on, blink in ((0b1111, 0), (0b0001, 0), (0, 0b1010)):
            link.set_lamps(on, blink)
            await asyncio.sleep(0.3)
        await asyncio.sleep(0.6)  # blinking: a write every 250 ms
        link.set_lamps(0, 0)
        await asyncio.sleep(0.1)
        assert link.connected, rig.status
        assert rig.status[-1][0] == "connected", rig.status
        assert not rig.errors, rig.errors
        assert not rig.presses, f"handsets pressed with nobody at the table: {rig.presses}"


async def test_a_press_on_the_lit_handset(ask: Callable[[str], None]) -> None:
    """Interactive: one random handset's lamp is lit; the person presses its red button."""
    async with buzz() as rig:
        handset = random.randrange(4)
        rig.link.set_lamps(1 << handset, 0)
        ask("Press the red button of the Buzz! handset whose lamp is lit; 15 s")
        await until(lambda: rig.presses, within=15)
        rig.link.set_lamps(0, 0)
        handsets, at, arrival = rig.presses[0]
        assert handsets == (handset,), f"handset {handsets} pressed, {handset} was lit"
        assert 0 <= arrival - at <= 20_000_000
