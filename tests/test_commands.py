"""Reading a command off MQTT, pure (console/shell/commands.py): the times on a hand-set clock."""

from __future__ import annotations

import pytest

from console.shell.commands import MAX_COMMAND_BYTES, command_object, command_time, read_time

MS = 1_000_000
TICK, HOLD = 50 * MS, 20 * MS


def test_a_command_is_dated_by_the_screen_only_between_the_last_sign_of_life_and_its_reading() -> None:
    assert command_time(None, 1000 * MS, 900 * MS) == 1000 * MS
    assert command_time(950 * MS, 1000 * MS, 900 * MS) == 950 * MS  # sent while the console was held
    assert command_time(100 * MS, 1000 * MS, 900 * MS) == 900 * MS  # never before it could be read
    assert command_time(2000 * MS, 1000 * MS, 900 * MS) == 1000 * MS  # never after its reading
    with pytest.raises(ValueError, match="sent_ns must be an integer"):
        command_time(True, 1000 * MS, 900 * MS)


def test_an_input_without_a_clock_read_after_a_hold_is_dated_at_its_start_and_unsure() -> None:
    alive = 1000 * MS
    assert read_time(alive + 10 * MS, None, alive, tick_ns=TICK, hold_ns=HOLD) == (alive + 10 * MS, None)
    assert read_time(alive + 30 * MS, alive, alive, tick_ns=TICK, hold_ns=HOLD) == (alive + 30 * MS, None)
    held = alive + TICK + HOLD + 1 * MS  # the watch has not ticked for longer than a hold
    assert read_time(held, alive, alive, tick_ns=TICK, hold_ns=HOLD) == (alive, alive)
    late_tick = alive + TICK + HOLD + 5 * MS  # read right after the tick that saw a hold
    assert read_time(late_tick + 1 * MS, late_tick, alive, tick_ns=TICK, hold_ns=HOLD) == (alive, alive)


def test_a_command_too_large_or_not_an_object_is_refused_unread() -> None:
    with pytest.raises(ValueError, match="too large"):
        command_object(b" " * (MAX_COMMAND_BYTES + 1))
    with pytest.raises(ValueError, match="expected a JSON object"):
        command_object(b"[1]")
    with pytest.raises(ValueError, match="lone surrogate"):
        command_object(b'{"action": "\\ud800"}')
