"""The console's own stall never loses a press: `chgk-console run` as a process on a real
mosquitto, its button box a simulated MCU on a pty owned by the test (it keeps running, as
the box on the table does), the daemon stopped with SIGSTOP while a player presses and
continued with SIGCONT (a Pi held up by its SD card, the GC, a slow disk).

The box's frames wait on the serial line meanwhile. Before a silence check judges the box,
the link reads what waits on the port (drivers/mcu_serial.py: `drain`), so the box is never
declared silent for the console's own stall, the port is not reopened (which would discard
the waiting frames), and the press made during the stall takes the turn (004 App.3, App.5).
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from drivers.sim_mcu import SimulatedMcu
from tests.conftest import Broker
from tests.test_console_mqtt import display
from tests.test_resume_process import SVOYA, daemon, online, play, sim, state_where, write_config

__all__ = ["sim"]  # the simulated box, a fixture of test_resume_process


@pytest.mark.parametrize("stall_s", [1.5, 3.0, 10.0])
async def test_a_press_made_while_the_console_is_stalled_takes_the_turn(
        mosquitto: Broker, tmp_path: Path, sim: SimulatedMcu, stall_s: float) -> None:
    """A stall longer than the link's 1-s silence timeout, inside an open 30-s window: the
    press made during it is judged when the console runs again, and no «нет связи» is said."""
    game = SVOYA.replace('kind = "svoya"\n', 'kind = "svoya"\nsignal_window_s = 30.0\n', 1)
    config = write_config(tmp_path, mosquitto, game.format(port=sim.port))
    topics = ("chgk/t1/events", "chgk/t1/state", "chgk/t1/status")
    async with display(mosquitto, *topics) as d, daemon(config, 1) as proc:
        await online(d, 0)
        await d.wait_for(lambda: [e for e in d.events("source_status") if e["state"] == "connected"])
        await play(d, mosquitto, b'{"action": "next"}', lambda p: p["phase"] == "reading")
        await play(d, mosquitto, b'{"action": "reading_finished"}', lambda p: p["phase"] == "open")
        mark = len(d.seen)
        proc.send_signal(signal.SIGSTOP)
        try:
            await asyncio.sleep(0.3)
            sim.press(1)  # Боря presses while the console cannot read
            sim.release(1)
            await asyncio.sleep(stall_s - 0.3)
        finally:
            proc.send_signal(signal.SIGCONT)
        answering = await state_where(d, lambda p: p["phase"] == "answering", after=mark)
        assert answering["question"]["answerer"] == "p2"
        accepted = [p for t, p in d.seen[mark:] if t.endswith("/events") and p["type"] == "signal_accepted"]
        assert [e["player"] for e in accepted] == ["p2"]
        statuses = [p for t, p in d.seen[mark:] if t.endswith("/events") and p["type"] == "source_status"]
        assert statuses == [], statuses  # the box was never declared silent, nor reopened
