"""The sports ChGK timer (seed 003 5.3) as a console of its own: commands, cues, replay."""

from __future__ import annotations

import asyncio
from typing import Any

from console.engine.model import NS_PER_S, Host, HostAction
from console.games import config_from_dict
from console.shell.runtime import Console
from console.shell.sound import Cue, NullPlayer


def sports_console() -> tuple[Console, NullPlayer, list[dict[str, Any]]]:
    cues = NullPlayer()
    console = Console(config_from_dict({"game": {"kind": "sports"}, "sound": {"enabled": False}}, "test"),
                      cue_player=cues)
    events: list[dict[str, Any]] = []
    console.wire_watchers.append(events.append)
    return console, cues, events


def test_003_5_3_minute_warning_at_50_s_and_10_s_to_hand_in_answers() -> None:
    console, cues, events = sports_console()
    console.commands.on_command(b'{"action": "start"}')
    start = events[0]["started_at_ns"]  # «Время!» as the console received it
    for second in (50, 60, 70):  # the console's timer would fire these; step them by hand
        console._carry_out(console.referee.on_timer(start + second * NS_PER_S + 1), start)
    assert [e["type"] for e in events] == [
        "sports_timer_started", "sports_timer_warning", "sports_time_up", "answers_closed"]
    assert events[1]["text"] == "Осталось 10 секунд"
    assert cues.played == [Cue.START, Cue.WARNING, Cue.TIME_UP]


def test_bad_sports_commands_are_errors() -> None:
    console, _cues, events = sports_console()
    console.commands.on_command(b'{"action": "go"}')
    console.commands.on_command(b'{"action": "start", "question": 3}')
    assert [e["type"] for e in events] == ["error", "error"]
    assert "start, cancel" in events[0]["message"]


def test_another_games_input_is_refused_and_the_count_goes_on() -> None:
    """A «Своя игра» host action (a pedal wired by mistake) must never cancel the minute."""
    console, _cues, events = sports_console()
    console.commands.on_command(b'{"action": "start"}')
    console.feed([Host(HostAction.READING_FINISHED, console.clock())])
    assert [e["type"] for e in events] == ["sports_timer_started", "error"]
    assert "только «Время!» и «Снять отсчёт»" in events[1]["message"]
    assert console.state()["phase"] == "counting"


async def test_the_countdown_runs_on_the_consoles_own_timer() -> None:
    console, _cues, events = sports_console()
    console.commands.on_command(b'{"action": "start"}')
    await asyncio.sleep(0.01)
    assert console.referee.running_timer() is not None
    assert events[-1]["type"] == "sports_timer_started"
