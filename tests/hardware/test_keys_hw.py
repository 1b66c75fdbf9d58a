"""The host's key device (keyboard, clicker, pedal) on the real input layer, through the console's
own reader (drivers/evdev_keys.py).

Without anyone at the table: the device ($CHGK_HW_KEYS, else the first [host.keys] device of the
installed config; a path or the kernel's name) is opened, grabbed (no other program can grab it:
its keys reach nothing else) and switched to CLOCK_MONOTONIC stamps (the reader says so when the
kernel cannot), and it has at least one of the keys the config maps. Interactive: a key pressed
arrives with the kernel's stamp, just before it was read.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import pytest

from drivers.evdev_keys import EVDEV, KeyReader
from tests.conftest import until
from tests.hardware import devices

ALL_KEYS = frozenset(range(1, 0x300))  # KEY_ESC .. KEY_MAX: any key of a device named by hand


@dataclass
class Keys:
    reader: KeyReader
    path: str = ""
    status: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    keys: list[tuple[int, int, int]] = field(default_factory=list)  # (code, at, arrival)


def mapped_codes(device: str) -> frozenset[int]:
    config = devices.installed_config()
    if config is not None:
        for keys in config.host.keys:
            if keys.device == device and keys.bindings:
                return frozenset(binding.code for binding in keys.bindings)
    return ALL_KEYS


@asynccontextmanager
async def key_device() -> AsyncIterator[Keys]:
    wanted = devices.key_device()
    if wanted is None:
        pytest.skip(f"no key device: none in [host.keys] of the installed config; set {devices.KEYS} "
                    f"to its /dev/input path or name (docs/hardware-tests.md)")
    reader = KeyReader(wanted.value, mapped_codes(wanted.value), kind=EVDEV, retry_s=60,
                       on_key=lambda code, at: rig.keys.append((code, at, time.monotonic_ns())),
                       on_status=lambda state, detail: rig.status.append((state, detail)),
                       on_error=lambda message: rig.errors.append(message))
    rig = Keys(reader)
    reader.start(asyncio.get_running_loop())
    try:
        if not reader.connected:
            wanted.absent(rig.status[-1][1])
        match = re.search(r"\((/dev/input/[^)]+)\), grabbed$", rig.status[-1][1])
        assert match, rig.status
        rig.path = match.group(1)
        yield rig
    finally:
        reader.close()


async def test_the_key_device_is_grabbed_on_the_monotonic_clock() -> None:
    import evdev

    async with key_device() as rig:
        assert not rig.errors, rig.errors  # e.g. "cannot stamp its events on CLOCK_MONOTONIC"
        other = evdev.InputDevice(rig.path)
        try:
            with pytest.raises(OSError):  # EBUSY: the console's reader holds the grab
                other.grab()
            keys = set(other.capabilities().get(evdev.ecodes.EV_KEY, []))
        finally:
            other.close()
        assert keys & rig.reader.codes, f"{rig.path} has none of the mapped keys {sorted(rig.reader.codes)}"


async def test_a_key_pressed_arrives_at_the_kernels_time(ask: Callable[[str], None]) -> None:
    async with key_device() as rig:
        ask(f"Press a mapped key on {rig.path} ({rig.status[-1][1]}); 15 s")
        await until(lambda: rig.keys, within=15)
        code, at, arrival = rig.keys[0]
        assert code in rig.reader.codes
        assert 0 <= arrival - at <= 50_000_000, f"read {(arrival - at) / 1e6:.1f} ms after the kernel's stamp"
