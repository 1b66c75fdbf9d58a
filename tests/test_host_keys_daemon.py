"""Host keys under `chgk-console run` as a process (issue 7): a key device configured as the
organiser writes it, but of the test-only kind "stream" (tests/fake_keyboard.py: real
input_event records through a pty behind a by-id-like link), drives a «Своя игра» question
over a real mosquitto, survives being unplugged and comes back; and GPIO pedals, several with
their own actions, through the Console with gpiozero's mock pins.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from evdev import ecodes
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from console.games import config_from_dict
from console.shell.host_keys import add_host_inputs
from console.shell.runtime import Console
from console.sources.gpio import add_buttons
from tests.conftest import Broker, until
from tests.daemon_process import daemon_process
from tests.engine_harness import svoya_of
from tests.fake_keyboard import FakeKeyboard
from tests.support.mqtt_console import display

MS = 1_000_000
KEYS = "keys:usb-Foot_Switch-event-kbd"


def write_config(tmp_path: Path, broker: Broker, link: Path) -> Path:
    config = tmp_path / "console.toml"
    config.write_text(
        '[console]\nnode = "t1"\n[game]\nkind = "svoya"\n'
        '[sources.mcu]\nkind = "simulated_mcu"\npads = 2\n'
        '[[players]]\nid = "p1"\nname = "Аня"\npad = "mcu:0"\n'
        '[[players]]\nid = "p2"\nname = "Боря"\npad = "mcu:1"\n'
        f'[host.keys]\ndevice = "{link}"\nkind = "stream"\n'
        'KEY_PAGEDOWN = "next"\nKEY_B = "reading_finished"\nKEY_ESC = "cancel"\n'
        f'[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n'
        '[display]\nhttp_port = 0\n[sound]\nenabled = false\n', encoding="utf-8")
    return config


def statuses(d: Any) -> list[str]:
    return [e["state"] for e in d.events("source_status") if e["source"] == KEYS]


async def test_keys_drive_run_and_survive_an_unplug(mosquitto: Broker, tmp_path: Path) -> None:
    kb = FakeKeyboard(tmp_path / "usb-Foot_Switch-event-kbd")
    kb.plug()
    try:
        async with (display(mosquitto, "chgk/t1/events", "chgk/t1/status") as d,
                    daemon_process(write_config(tmp_path, mosquitto, kb.link))):
            await d.wait_for(lambda: statuses(d) == ["connected"], within=15)
            kb.release_slave()
            t0 = (time.monotonic_ns() - 300 * MS) // 1000 * 1000  # CLOCK_MONOTONIC, as the daemon's
            kb.tap(ecodes.KEY_PAGEDOWN, t0)
            kb.tap(ecodes.KEY_B, t0 + 100 * MS)
            finished = await d.wait_for(lambda: d.events("reading_finished"))
            assert finished[0]["window_ends_ns"] == t0 + 100 * MS + 7 * 10**9  # from the press
            assert len(d.events("question_started")) == 1

            kb.unplug()
            await d.wait_for(lambda: statuses(d)[-1:] == ["disconnected"])
            kb.plug()
            await d.wait_for(lambda: statuses(d)[-1:] == ["connected"], within=10)
            kb.release_slave()
            kb.tap(ecodes.KEY_ESC)
            assert await d.wait_for(lambda: d.events("question_ended"))
            status = [p for t, p in d.seen if t.endswith("/status")][-1]
            assert status["sources"][KEYS] == "connected"
            assert d.events("error") == [
                e for e in d.events("error") if e["source"] == KEYS]  # nothing else went wrong
    finally:
        kb.close()


# ------------------------------------------------------------------ several GPIO pedals


@pytest.fixture
def mock_pins() -> Iterator[MockFactory]:
    saved = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved


async def test_several_pedals_each_with_its_action(mock_pins: MockFactory) -> None:
    config = config_from_dict({
        "game": {"kind": "svoya"},
        "sources": {"b": {"kind": "gpio", "pins": [5, 6], "pin_factory": "mock"}},
        "players": [{"id": "p1", "name": "А", "pad": "b:0"}, {"id": "p2", "name": "Б", "pad": "b:1"}],
        "host": {"pedal_pin": 22, "pedal_action": "next",
                 "pedals": [{"pin": 17, "pin_factory": "mock"},
                            {"pin": 27, "action": "correct", "pin_factory": "mock"}]},
    }, "t")
    console = Console(config)
    events: list[dict[str, Any]] = []
    console.wire_watchers.append(events.append)
    add_buttons(console.sources, "b", [5, 6], pin_factory="mock")
    add_host_inputs(console.sources, console.config.host)
    console.sources.start_local_inputs()
    try:
        assert {e["source"]: e["state"] for e in events if e["type"] == "source_status"} == {
            "b": "connected", "pedal": "connected", "pedal:17": "connected", "pedal:27": "connected"}
        mock_pins.pin(22).drive_low()  # the old pedal_pin: next
        await until(lambda: svoya_of(console).phase == "reading")
        mock_pins.pin(17).drive_low()  # reading_finished
        await until(lambda: svoya_of(console).phase == "open")
        mock_pins.pin(6).drive_low()  # player p2's button
        await until(lambda: any(e["type"] == "signal_accepted" for e in events), within=2)
        mock_pins.pin(27).drive_low()  # correct
        await until(lambda: any(e["type"] == "question_ended" for e in events), within=2)
        ended = next(e for e in events if e["type"] == "question_ended")
        assert ended["scores"]["p2"] == 10
    finally:
        console.sources.close_local_inputs()
