"""The asyncio shell: cues and lamps from the referee's decisions, GPIO buttons and the pedal."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from console.engine.model import HostAction
from console.games import config_from_dict, game, names
from console.shell.own_actions import OWN_ACTIONS
from console.shell.runtime import Console
from console.shell.sound import Cue, NullPlayer
from console.sources.gpio import add_buttons, add_pedal
from tests.conftest import Broker, until
from tests.engine_harness import svoya_of
from tests.gpio_mock import EdgeSpy


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


def gpio_console(**game: Any) -> tuple[Console, NullPlayer, list[dict[str, Any]]]:
    config = config_from_dict({
        "game": {"seed": 3, **game},
        "players": [{"id": f"p{i}", "name": f"Игрок {i}", "pad": f"btn:{i}"} for i in range(2)],
        "sources": {"btn": {"kind": "gpio", "pins": [17, 27], "pin_factory": "mock", "max_delay_ms": 2}},
        "sound": {"enabled": False},
    }, "test")
    cues = NullPlayer()
    console = Console(config, cue_player=cues)
    events: list[dict[str, Any]] = []
    console.wire_watchers.append(events.append)
    add_buttons(console.sources, "btn", [17, 27], pin_factory="mock")
    return console, cues, events


async def test_gpio_press_is_judged_on_its_edge_time_with_a_cue(mock_pins: MockFactory) -> None:
    """004 App.5: the signal is shown by light and/or sound; here the cue on acceptance."""
    console, cues, events = gpio_console()
    console.sources.start_local_inputs()
    try:
        console.host(HostAction.NEXT)
        await asyncio.sleep(0.01)
        spy = EdgeSpy(mock_pins.pin(27))  # the ticks the pin factory hands the driver
        mock_pins.pin(27).drive_low()  # player p1's button, pin 27
        await until(lambda: any(e["type"] == "signal_accepted" for e in events))
        decision = next(e for e in events if e["type"] == "signal_accepted")
        assert decision["player"] == "p1"
        assert decision["press_at_ns"] == spy.last_ns  # the edge's own time, not its arrival
        assert decision["press_at_ns"] < decision["t_ns"]
        assert cues.played == [Cue.SIGNAL]
    finally:
        console.sources.close_local_inputs()


async def test_time_up_cue_when_nobody_signals(mock_pins: MockFactory) -> None:
    """004 App.10.3: the question ends when nobody signals in time; the console says so."""
    console, cues, events = gpio_console(signal_window_s=0.05)
    console.host(HostAction.NEXT)
    console.host(HostAction.READING_FINISHED)
    await until(lambda: any(e["type"] == "question_ended" for e in events))
    assert next(e for e in events if e["type"] == "question_ended")["reason"] == "no_signal"
    assert cues.played == [Cue.TIME_UP]


async def test_the_pedal_is_a_host_key_with_its_edge_time(mock_pins: MockFactory) -> None:
    console, _cues, events = gpio_console()
    add_pedal(console.sources, 22, HostAction.READING_FINISHED, pin_factory="mock")
    console.sources.start_local_inputs()
    try:
        console.host(HostAction.NEXT)
        mock_pins.pin(22).drive_low()
        await until(lambda: any(e["type"] == "reading_finished" for e in events))
        assert svoya_of(console).phase == "open"
    finally:
        console.sources.close_local_inputs()


async def test_a_bug_on_the_timer_stops_the_console_loudly(
    mock_pins: MockFactory, mosquitto: Broker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in the referee while its timer fires must not leave the clocks stopped for the rest
    of the evening (asyncio would only log it): `run` ends with the error, so the daemon exits
    and systemd restarts it (Restart=on-failure), and the host is told first."""
    console, _cues, events = gpio_console(signal_window_s=0.05)

    def fails(now: int) -> Any:
        raise RuntimeError("a bug on the timer path")

    monkeypatch.setattr(console.referee, "on_timer", fails)
    connected = asyncio.Event()
    task = asyncio.create_task(console.run(mosquitto.host, mosquitto.port, on_ready=connected.set))
    await asyncio.wait_for(connected.wait(), 10)
    console.host(HostAction.NEXT)
    console.host(HostAction.READING_FINISHED)
    with pytest.raises(ExceptionGroup) as failed:
        await asyncio.wait_for(task, 10)
    assert failed.group_contains(RuntimeError, match="a bug on the timer path")
    assert [e["message"] for e in events if e["type"] == "error"] == [
        "internal error on the timer (see the log): the console stops, restarts and resumes the "
        "fight from the journal"]


async def test_a_failing_watcher_does_not_cut_the_outputs_short(mock_pins: MockFactory) -> None:
    """A watcher of the events (the demo's screen) that raises: the cue still plays."""
    console, cues, events = gpio_console()

    def broken_screen(event: dict[str, Any]) -> None:
        raise RuntimeError("the screen is broken")

    console.wire_watchers.insert(0, broken_screen)
    console.sources.start_local_inputs()
    try:
        console.host(HostAction.NEXT)
        await asyncio.sleep(0.01)
        mock_pins.pin(27).drive_low()
        await until(lambda: any(e["type"] == "signal_accepted" for e in events))
        assert cues.played == [Cue.SIGNAL]
        assert svoya_of(console).phase == "answering"
    finally:
        console.sources.close_local_inputs()


async def test_a_flood_of_bad_commands_is_shown_as_ten_errors_and_a_count(mock_pins: MockFactory) -> None:
    """A tablet stuck in a loop sends hundreds of bad commands: the displays get ten error
    events and then one count, not hundreds; the game is untouched."""
    console, _cues, events = gpio_console()
    for _ in range(300):
        console.commands.on_command(b'{"action": "dance"}')
    errors = [e for e in events if e["type"] == "error"]
    assert len(errors) == 10 and all("dance" in e["message"] for e in errors)
    await until(lambda: len([e for e in events if e["type"] == "error"]) == 11, within=3)
    assert "290 more error(s) from mqtt" in events[-1]["message"]
    assert svoya_of(console).phase == "idle"


@pytest.mark.parametrize("kind", names())
def test_no_game_takes_an_action_name_of_the_consoles_own(kind: str) -> None:
    """Issue 30: the console's own host actions (resume, media, packs, the button check) are a
    table beside the game's parser; a game whose action took one of their names would never
    get it. Every game refuses them all as its own."""
    for action in sorted(OWN_ACTIONS):
        with pytest.raises(ValueError):
            game(kind).parse_command({"action": action}, 0)
