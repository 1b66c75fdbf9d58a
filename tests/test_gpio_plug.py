"""A box of buttons on the Pi's GPIO pins with a presence pin in its plug, on gpiozero's own
MockFactory: a pulled cable leaves the button pins floating at their pull-ups, which no press
can be told from, so the plug's own wire (the presence pin tied to ground while plugged in)
says the box is gone. The console then treats it as any lost box: the open window waits
for it and the decision over the span names it for the host (004 App.4, IV 4.4)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from console.config import ConfigError
from console.engine.events import Event
from console.engine.model import HostAction
from console.engine.svoya.events import QuestionEnded, SignalAccepted, SignalsHeld, SignalsResumed
from console.games import config_from_dict
from console.shell.runtime import Console
from console.sources.gpio import GpioButtonsSettings
from tests.conftest import until

BUTTONS = (5, 6, 13)
PLUG = 17


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    before = Device.pin_factory
    mock = MockFactory()
    Device.pin_factory = mock  # "mock" in a config means gpiozero's process-wide mock factory
    yield mock
    mock.reset()  # gpiozero issue #1087: closed devices keep their mock pins
    Device.pin_factory = before


def gpio_config(**source: object) -> dict[str, object]:
    return {
        "console": {"node": "t1", "journal": ""},
        "game": {"signal_window_s": 0.5},
        "players": [{"id": f"p{i + 1}", "name": f"Игрок {i + 1}", "pad": f"pads:{i}"} for i in range(3)],
        "sources": {"pads": {"kind": "gpio", "pins": list(BUTTONS), "pin_factory": "mock",
                             "presence_pin": PLUG, **source}},
        "sound": {"enabled": False},
    }


@asynccontextmanager
async def gpio_console() -> AsyncIterator[tuple[Console, list[Event]]]:
    config = config_from_dict(gpio_config(), "t")
    console = Console(config)
    config.sources["pads"].attach(console.sources, "pads")
    events: list[Event] = []
    console.watchers.append(events.append)
    console.sources.start_local_inputs()
    try:
        yield console, events
    finally:
        console.sources.close_local_inputs()


def test_the_plugs_pin_is_checked() -> None:
    for presence_pin, expected in ((None, PLUG), (-1, -1)):
        config = gpio_config() if presence_pin is None else gpio_config(presence_pin=presence_pin)
        pads = config_from_dict(config, "t").sources["pads"]
        assert isinstance(pads, GpioButtonsSettings) and pads.presence_pin == expected
    with pytest.raises(ConfigError, match=r"presence_pin.*a button's or a lamp's"):
        config_from_dict(gpio_config(presence_pin=BUTTONS[0]), "t")
    with pytest.raises(ConfigError, match="presence_pin"):
        config_from_dict(gpio_config(presence_pin=-2), "t")


async def test_a_box_unplugged_at_start_is_said(factory: MockFactory) -> None:
    async with gpio_console() as (console, _events):  # the plug's pin floats high: no box
        assert console.sources.status["pads"] == "disconnected"
        factory.pin(PLUG).drive_low()
        await until(lambda: console.sources.status["pads"] == "connected", within=3.0)


async def test_a_cable_pulled_in_the_window_holds_it_and_the_end_is_put_to_the_host(
        factory: MockFactory) -> None:
    async with gpio_console() as (console, events):
        # MockPin takes its pull-up's level when claimed: the plug goes in once it is claimed.
        factory.pin(PLUG).drive_low()
        await until(lambda: console.sources.status["pads"] == "connected", within=3.0)
        console.host(HostAction.NEXT)
        console.host(HostAction.READING_FINISHED)  # the window: 0.5 s here
        factory.pin(PLUG).drive_high()  # a foot pulls the cable
        await until(lambda: [e for e in events if isinstance(e, SignalsHeld)], within=3.0)
        assert console.sources.status["pads"] == "disconnected"
        await asyncio.sleep(0.8)  # the window's time is over: it still waits for the box
        assert not [e for e in events if isinstance(e, QuestionEnded)]
        factory.pin(PLUG).drive_low()  # plugged back; nobody pressed meanwhile
        await until(lambda: [e for e in events if isinstance(e, QuestionEnded)], within=3.0)
        ended = [e for e in events if isinstance(e, QuestionEnded)]
        assert ended[0].reason == "no_signal" and ended[0].inputs_lost == ("pads",)
        assert [e for e in events if isinstance(e, SignalsResumed)]
        # And the box works again: the next question's press is judged.
        console.host(HostAction.NEXT)
        console.host(HostAction.READING_FINISHED)
        factory.pin(BUTTONS[2]).drive_low()
        await until(lambda: [e for e in events if isinstance(e, SignalAccepted)], within=3.0)
        accepted = [e for e in events if isinstance(e, SignalAccepted)]
        assert accepted[0].player == "p3"
