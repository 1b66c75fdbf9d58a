"""«Проверка кнопок» in the console (console/shell/button_check.py): the presses during it go
to the check, never to the game nor its journal; it is refused during a question; ended, it
names the buttons that never answered."""

from __future__ import annotations

import io
import json

from console.engine.model import NS_PER_MS as MS
from console.engine.model import HostAction, LampMode
from console.games import load_config
from console.shell.runtime import Console
from console.sources.mcu import McuFeed
from drivers.mcu_serial import PadEdge, Watermark
from tests.support.clock import Clock
from tests.support.demo import DEMO_TOML


def console() -> tuple[Console, Clock, io.StringIO, list[dict[str, object]]]:
    clock = Clock()
    journal = io.StringIO()
    c = Console(load_config(DEMO_TOML), clock=clock, journal=journal)
    events: list[dict[str, object]] = []
    c.wire_watchers.append(events.append)
    return c, clock, journal, events


def press(c: Console, clock: Clock, pad: int) -> None:
    clock.now += 10 * MS
    feed = McuFeed(c.sources, "sim")
    feed.edge(PadEdge((pad,), True, clock.now, clock.now // 1000, 0))
    feed.watermark(Watermark(clock.now))


def test_presses_during_the_check_go_to_it_not_to_the_game() -> None:
    c, clock, journal, events = console()
    c.commands.on_command(b'{"action": "check_buttons"}')
    press(c, clock, 0)
    press(c, clock, 3)
    press(c, clock, 0)  # again: nothing new
    check = c.own.button_check
    assert check is not None and check.active
    buttons = check.view()["buttons"]
    assert isinstance(buttons, list)
    assert [b["pressed"] for b in buttons if isinstance(b, dict)] == [True, False, False, True]
    assert check.lamps()["sim:0"] is LampMode.ON and check.lamps()["sim:1"] is LampMode.OFF
    assert [e["type"] for e in events if e["type"] == "press_ignored"] == []  # no false start
    assert not [line for line in journal.getvalue().splitlines() if '"press"' in line]
    c.commands.on_command(b'{"action": "end_check"}')
    assert check.silent() == ["Борис (sim:1)", "Вера (sim:2)"]
    press(c, clock, 1)  # the game's again: a press between questions is its false start
    assert [e["reason"] for e in events if e["type"] == "press_ignored"] == ["false_start"]


def test_the_check_is_refused_during_a_question_and_the_game_goes_on() -> None:
    c, clock, _journal, events = console()
    c.host(HostAction.NEXT)
    c.commands.on_command(b'{"action": "check_buttons"}')
    (error,) = [e for e in events if e["type"] == "error"]
    assert error["source"] == "button_check" and "between questions" in str(error["message"])
    assert c.own.button_check is None
    press(c, clock, 2)
    clock.now += 20 * MS
    c.fire_due()
    assert [e["player"] for e in events if e["type"] == "signal_accepted"] == ["p3"]
    c.commands.on_command(json.dumps({"action": "end_check", "extra": 1}).encode())  # bad: refused
    assert any("unknown key" in str(e.get("message")) for e in events if e["type"] == "error")


def test_a_player_added_on_the_tablet_is_checked_and_one_removed_is_not() -> None:
    """The buttons checked are the fight's as the host left them (issue 19: players from the
    tablet), not the config's: a button given to a new player is checked under their name, a
    removed player's is not, and a button held down is said to be the new player's."""
    c, clock, _journal, events = console()
    c.commands.on_command(b'{"action": "remove_player", "player": "p4"}')
    c.commands.on_command('{"action": "add_player", "name": "Дина"}'.encode())
    press(c, clock, 3)  # the button p4 left: now Дина's
    c.commands.on_command(b'{"action": "check_buttons"}')
    check = c.own.button_check
    assert check is not None
    buttons = check.view()["buttons"]
    assert isinstance(buttons, list)
    owners = {b["pad"]: b["name"] for b in buttons if isinstance(b, dict)}
    assert owners == {"sim:0": "Анна", "sim:1": "Борис", "sim:2": "Вера", "sim:3": "Дина"}
    c.commands.on_command(b'{"action": "end_check"}')
    assert c.sources.held is not None
    c.sources.button_edge("sim", "sim:3", True, clock.now)
    clock.now += 6_000 * MS
    c.sources.on_held_timer()
    held = [e for e in events if e["type"] == "button_held"]
    assert [(e["pad"], e["player"]) for e in held] == [("sim:3", "p5")]
