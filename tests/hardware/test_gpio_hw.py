"""GPIO buttons and lamps on the Pi's own pins, through gpiozero's default pin factory and the
console's drivers (drivers/gpio_buttons.py, drivers/gpio_lamps.py).

Without anyone at the table: gpiozero's default factory is lgpio (the only one whose edges carry
the kernel's stamps on the console's clock; without python3-lgpio gpiozero silently falls back to
a factory that stamps on arrival); every configured button pin is claimed with its pull-up and
reads released (a pin that reads pressed is a stuck or shorted button, or a wrong pin); every lamp
pin is driven on, off and blinking and reads back the level driven (a pin shorted or held by
something else does not). With a jumper from a lamp pin to a button pin ($CHGK_HW_GPIO_LOOPBACK =
"LAMP:BUTTON"), the lamp driver presses the button: the press arrives with the kernel's stamp,
between the moments before and after the lamp was switched.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from drivers.gpio_buttons import GpioButtons, GpioPress, resolve_pin_factory
from drivers.gpio_lamps import BLINK_S, GpioLamps
from tests.conftest import until
from tests.hardware import devices

EXPECTED_FACTORY = "LGPIOFactory"
EDGE_SLACK_NS = 1_000_000  # the kernel stamps the edge within microseconds of the level change


@pytest.fixture
def factory() -> Iterator[Any]:
    """gpiozero's default pin factory, which must be lgpio's."""
    if not devices.is_raspberry_pi():
        pytest.skip("the GPIO tests run on a Raspberry Pi (/proc/device-tree/model)")
    found, name = resolve_pin_factory("")
    assert type(found).__name__ == EXPECTED_FACTORY, (
        f"gpiozero's default pin factory is {name}, not lgpio: edges would be stamped on arrival; "
        f"install python3-lgpio (scripts/install-pi.sh does)")
    yield found


@dataclass
class Seen:
    edges: list[GpioPress] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def edges_at_least(seen: Seen, count: int) -> bool:
    return len(seen.edges) >= count


def buttons(pins: tuple[int, ...], seen: Seen) -> GpioButtons:
    # pin_factory "" is what a [sources.X] without pin_factory gives the console.
    return GpioButtons(pins, on_edge=seen.edges.append, on_error=seen.errors.append)


async def test_the_buttons_are_claimed_and_read_released(factory: Any) -> None:
    pins, wanted = devices.gpio_pins(devices.GPIO_PINS, "pins")
    if not pins:
        wanted.absent("no GPIO buttons configured")
    seen = Seen()
    for _ in range(2):  # claimed, released by close(), and claimed again
        pads = buttons(pins, seen)
        pads.start(asyncio.get_running_loop())
        try:
            await asyncio.sleep(0.5)
        finally:
            pads.close()
    assert not seen.errors, f"{seen.errors} (with nobody at the table)"
    assert not seen.edges, f"buttons changed with nobody at the table: {seen.edges}"


def level(factory: Any, pin: int) -> bool:
    """The level of an output pin as the GPIO block reads it back (gpiozero's public Pin.state;
    the factory hands out the pin object its LED holds)."""
    return bool(factory.pin(pin).state)


async def test_the_lamps_are_driven_and_read_back(factory: Any) -> None:
    pins, wanted = devices.gpio_pins(devices.LAMP_PINS, "lamp_pins")
    if not pins:
        wanted.absent("no GPIO lamps configured")
    errors: list[str] = []
    lamps = GpioLamps(pins, on_error=errors.append)
    lamps.start(asyncio.get_running_loop())
    try:
        assert not errors, errors
        assert [level(factory, pin) for pin in pins] == [False] * len(pins)
        for pad in range(len(pins)):
            lamps.set_lamps(1 << pad, 0)
            await asyncio.sleep(0.02)
            assert [level(factory, pin) for pin in pins] == [i == pad for i in range(len(pins))], \
                f"lamp {pad} (pin {pins[pad]}) lit"
        lamps.set_lamps(0, 1)
        levels = set()
        deadline = time.monotonic() + 3 * BLINK_S
        while time.monotonic() < deadline:
            levels.add(level(factory, pins[0]))
            await asyncio.sleep(0.02)
        assert levels == {False, True}, f"lamp 0 (pin {pins[0]}) did not blink"
        lamps.set_lamps(0, 0)
        await asyncio.sleep(0.02)
        assert [level(factory, pin) for pin in pins] == [False] * len(pins)
        assert not errors, errors
    finally:
        lamps.close()


async def test_a_lamp_jumpered_to_a_button_presses_it_at_the_kernels_time(factory: Any) -> None:
    wanted = devices.from_env(devices.GPIO_LOOPBACK)
    if wanted is None:
        pytest.skip(f"needs a jumper from a lamp pin to a button pin: {devices.GPIO_LOOPBACK}=LAMP:BUTTON")
    lamp_pin, button_pin = devices.pins(wanted.value.replace(":", ","), devices.GPIO_LOOPBACK)
    lamp = GpioLamps([lamp_pin])
    lamp.start()
    lamp.set_lamps(1, 0)  # high: the pulled-up button reads released
    seen = Seen()
    pad = buttons((button_pin,), seen)
    pad.start(asyncio.get_running_loop())
    try:
        await asyncio.sleep(0.1)
        assert not seen.errors and not seen.edges, (seen.errors, seen.edges)
        for round_ in range(5):
            for lit in (0, 1):  # low: pressed; high: released
                before = time.monotonic_ns()
                lamp.set_lamps(lit, 0)
                after = time.monotonic_ns()
                expected = 2 * round_ + 1 + lit
                await until(functools.partial(edges_at_least, seen, expected), within=1)
                edge = seen.edges[-1]
                assert edge.pressed == (not lit)
                assert before - EDGE_SLACK_NS <= edge.at_ns <= after + EDGE_SLACK_NS, \
                    f"stamped {(edge.at_ns - before) / 1e6:.3f} ms after the lamp was switched " \
                    f"(the switch took {(after - before) / 1e6:.3f} ms)"
                await asyncio.sleep(0.05)  # past the 30 ms lockout
        assert not seen.errors, seen.errors
    finally:
        pad.close()
        lamp.close()
