"""Players' lamps on GPIO pins (gpiozero's LED) against gpiozero's own MockFactory: the pins' states
are read back from the mock pins, both from the driver and from the «Своя игра» console, whose
referee lights them through the same lamp masks as an MCU's lamps."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from console.config import ConfigError
from console.engine.events import Event
from console.engine.model import HostAction
from console.engine.svoya.events import QuestionEnded, SignalAccepted
from console.games import config_from_dict
from console.shell.runtime import Console
from console.sources.gpio import GpioButtonsSettings
from drivers.gpio_lamps import GpioLamps
from tests.conftest import until

BUTTONS = (5, 6, 13)
LAMPS = (20, 21, 26)


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    before = Device.pin_factory
    mock = MockFactory()
    Device.pin_factory = mock  # "mock" in a config means gpiozero's process-wide mock factory
    yield mock
    mock.reset()  # gpiozero issue #1087: closed devices keep their mock pins
    Device.pin_factory = before


def lit(factory: MockFactory) -> list[bool]:
    return [bool(factory.pin(p).state) for p in LAMPS]


def toggles(factory: MockFactory, pin: int) -> list[float]:
    """Times the pin changed level, in s from the mock factory's start (MockPin keeps every state
    it was set to, each stamped with the time since the one before)."""
    at, times, level = 0.0, [], None
    for state in factory.pin(pin).states:
        at += state.timestamp
        if level is not None and state.state != level:
            times.append(at)
        level = state.state
    return times


async def test_on_off_and_the_state_before_start(factory: MockFactory) -> None:
    lamps = GpioLamps(LAMPS, pin_factory="mock")
    lamps.set_lamps(0b100, 0)  # before the pins are claimed: kept, shown at start
    lamps.start(asyncio.get_running_loop())
    try:
        assert lit(factory) == [False, False, True]
        lamps.set_lamps(0b011, 0)
        assert lit(factory) == [True, True, False]
        lamps.set_lamps(0, 0)
        assert lit(factory) == [False, False, False]
        lamps.set_lamps(0b1000, 0)  # a pad with no lamp: nothing
        assert lit(factory) == [False, False, False]
    finally:
        lamps.close()


@pytest.mark.timing  # real 250 ms blinks: the parallel pass made one toggle 74 ms late once
async def test_blinking_lamps_blink_in_phase_at_250_ms(factory: MockFactory) -> None:
    lamps = GpioLamps(LAMPS, pin_factory="mock")
    lamps.start(asyncio.get_running_loop())
    try:
        lamps.set_lamps(0b001, 0b001)  # blink wins over on
        await asyncio.sleep(0.4)
        lamps.set_lamps(0b100, 0b011)  # the set changed: both restart together
        await asyncio.sleep(1.1)
        b = toggles(factory, LAMPS[1])
        a = toggles(factory, LAMPS[0])  # read after b: it has had every toggle of b's ticks' time
        assert len(b) >= 4
        assert all(0.15 < t2 - t1 < 0.4 for t1, t2 in itertools.pairwise(b))
        # In phase: each of lamp 1's toggles after its start has one of lamp 0's beside it. (At
        # the restart itself lamp 0 may already be lit and not toggle; out of phase, its toggles
        # would fall 100-150 ms away: it had blinked for 0.4 s before lamp 1 began.) A toggle of
        # lamp 1 after lamp 0's last is a tick lamp 0 has not reached yet on a loaded machine
        # (found beside a CPU-heavy process): only those lamp 0 has had the time for count.
        checked = [tb for tb in b[1:] if tb <= a[-1] + 0.05]
        assert len(checked) >= 3 and all(min(abs(ta - tb) for ta in a) < 0.05 for tb in checked), (a, b)
        assert factory.pin(LAMPS[2]).state  # steady on meanwhile
        lamps.set_lamps(0, 0)
        assert lit(factory) == [False, False, False]
        count = len(toggles(factory, LAMPS[1]))
        await asyncio.sleep(0.6)
        assert len(toggles(factory, LAMPS[1])) == count  # the blinking stopped
    finally:
        lamps.close()


async def test_a_lamp_pin_in_use_is_reported_and_the_others_work(factory: MockFactory) -> None:
    errors: list[str] = []
    taken = GpioLamps([LAMPS[1]], pin_factory="mock")
    taken.start()
    lamps = GpioLamps(LAMPS, pin_factory="mock", on_error=errors.append)
    lamps.start()
    try:
        assert len(errors) == 1 and f"lamp pin {LAMPS[1]} (pad 1)" in errors[0]
        lamps.set_lamps(0b111, 0)
        assert [bool(factory.pin(p).state) for p in (LAMPS[0], LAMPS[2])] == [True, True]
    finally:
        lamps.close()
        taken.close()
    assert lit(factory) == [False, False, False]  # closed: out


def gpio_config(**source: object) -> dict[str, object]:
    return {
        "console": {"node": "t1", "journal": ""},
        "players": [{"id": f"p{i + 1}", "name": f"Игрок {i + 1}", "pad": f"pads:{i}"} for i in range(3)],
        "sources": {"pads": {"kind": "gpio", "pins": list(BUTTONS), "pin_factory": "mock", **source}},
        "sound": {"enabled": False},
    }


def test_lamp_pins_are_checked() -> None:
    pads = config_from_dict(gpio_config(lamp_pins=list(LAMPS)), "t").sources["pads"]
    assert isinstance(pads, GpioButtonsSettings) and pads.lamp_pins == LAMPS
    with pytest.raises(ConfigError, match="one lamp pin per pad"):
        config_from_dict(gpio_config(lamp_pins=[20, 21]), "t")
    with pytest.raises(ConfigError, match="a pin of its own"):
        config_from_dict(gpio_config(lamp_pins=[20, 21, 5]), "t")


@asynccontextmanager
async def gpio_console() -> AsyncIterator[tuple[Console, list[Event]]]:
    config = config_from_dict(gpio_config(lamp_pins=list(LAMPS)), "t")
    console = Console(config)
    config.sources["pads"].attach(console.sources, "pads")
    events: list[Event] = []
    console.watchers.append(events.append)
    console.sources.start_local_inputs()
    try:
        yield console, events
    finally:
        console.sources.close_local_inputs()


async def test_the_referee_lights_the_pressers_lamp(factory: MockFactory) -> None:
    async with gpio_console() as (console, events):
        console.host(HostAction.NEXT)
        factory.pin(BUTTONS[1]).drive_low()  # pad 1 pressed (to ground, pulled up)
        await until(lambda: [e for e in events if isinstance(e, SignalAccepted)], within=3.0)
        assert lit(factory) == [False, True, False]
        console.host(HostAction.CORRECT)
        assert [e for e in events if isinstance(e, QuestionEnded)]
        assert lit(factory) == [False, False, False]
