"""The console's own lateness never counts against a player (issue 15): a `Console` on a
hand-stepped clock, held up across the end of the 7-s window (its timer comes late, as after
a stall of the Pi), reads a press made 40 ms before the end only afterwards. The press takes
the turn (004 App.4: signals count until 7 s after the reading; App.5: the first one answers),
the hold is said (`console_held`), the journal keeps the press as judged, and a replay of the
journal gives the same decision."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from console.engine.model import NS_PER_MS as MS
from console.engine.model import NS_PER_S as S
from console.engine.model import HostAction
from console.games import load_config
from console.shell.runtime import Console
from console.sources.mcu import McuFeed
from console.tools.replay import replay_lines
from drivers.mcu_serial import PadEdge, Watermark
from tests.conftest import Broker
from tests.support.clock import Clock
from tests.support.demo import DEMO_CHGK, DEMO_TOML


def held_console() -> tuple[Console, Clock, list[dict[str, object]], io.StringIO]:
    clock = Clock()
    journal = io.StringIO()
    console = Console(load_config(DEMO_TOML), clock=clock, journal=journal)
    events: list[dict[str, object]] = []
    console.wire_watchers.append(events.append)
    console.host(HostAction.NEXT)
    clock.now += 100 * MS
    console.host(HostAction.READING_FINISHED)
    return console, clock, events, journal


def press(console: Console, pad: int, at: int) -> None:
    """One scan of the simulated box and the watermark after it, as the link hands them on."""
    feed = McuFeed(console.sources, "sim")
    feed.edge(PadEdge((pad,), True, at, at // 1000, 0))
    feed.watermark(Watermark(at))


def test_a_press_made_before_the_window_ends_counts_though_the_console_read_it_late() -> None:
    console, clock, events, journal = held_console()
    end = clock.now + 7 * S
    due = console.referee.next_deadline()
    assert due is not None and end <= due < end + 10 * MS  # the window's end plus the box's delay
    clock.now = end + 1 * S  # held up a second past the end: the timer never ran
    press(console, 1, end - 40 * MS)  # Борис, 40 ms before the end
    kinds = [e["type"] for e in events]
    assert "question_ended" not in kinds
    (held,) = [e for e in events if e["type"] == "console_held"]
    assert held["deadline_ns"] == due and held["held_ms"] == (clock.now - due) / MS
    (accepted,) = [e for e in events if e["type"] == "signal_accepted"]
    assert accepted["player"] == "p2"
    lines = [json.loads(line) for line in journal.getvalue().splitlines()]
    (pressed,) = [line for line in lines if "press" in line]
    assert pressed["arrive_ms"] == (due - 1) / MS  # judged as read just before the deadline
    out, err = io.StringIO(), io.StringIO()
    assert replay_lines(journal.getvalue().splitlines(), "journal", out, err) == 0, err.getvalue()
    replayed = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [e["player"] for e in replayed if e["type"] == "signal_accepted"] == ["p2"]


def test_a_press_made_after_the_window_ends_does_not_count_though_read_in_the_same_hold() -> None:
    """004 App.4: a signal after the 7 s does not count, whenever the console reads it: the
    question ends at its own deadline, as on time, and the press comes after it."""
    console, clock, events, _journal = held_console()
    end = clock.now + 7 * S
    clock.now = end + 1 * S
    press(console, 2, end + 500 * MS)  # Вера, half a second after the end
    ended = [e for e in events if e["type"] == "question_ended"]
    assert [e["reason"] for e in ended] == ["no_signal"]
    # As a console on time would say: the question ended at its deadline, before this press.
    assert [e["reason"] for e in events if e["type"] == "press_ignored"] == ["false_start"]
    assert [e for e in events if e["type"] == "signal_accepted"] == []


@pytest.mark.parametrize(("late_ms", "held"), [(10, False), (20, False), (21, True)])
def test_a_timer_only_a_little_late_is_no_hold(late_ms: int, held: bool) -> None:
    """A decision taken a few ms late (the loop's ordinary jitter) is not said as a hold; one
    more than 20 ms late is (docs/mqtt.md `console_held`: the figure is written here, not read
    from the code it checks)."""
    console, clock, events, _journal = held_console()
    due = console.referee.next_deadline()
    assert due is not None
    clock.now = due + late_ms * MS
    console.feed([])
    assert [e["reason"] for e in events if e["type"] == "question_ended"] == ["no_signal"]
    assert len([e for e in events if e["type"] == "console_held"]) == int(held)


def test_a_commands_own_time_is_bounded_by_the_consoles_reading() -> None:
    """``sent_ns`` (the host's screen's estimate of this console's clock) is the command's time
    only between the console's last sign of life and its reading of it: a screen cannot date a
    command before the console could have read it, nor after it did; a bad one is refused."""
    clock = Clock()
    journal = io.StringIO()
    console = Console(load_config(DEMO_TOML), clock=clock, journal=journal)
    alive = clock.now  # no loop here: the sign of life is the start
    events: list[dict[str, object]] = []
    console.wire_watchers.append(events.append)
    clock.now += 5 * S
    claims = ((alive - 3 * S, alive), (clock.now + 2 * S, clock.now), (alive + 1 * S, alive + 1 * S))
    for sent, expected in claims:
        console.commands.on_command(json.dumps({"action": "cancel", "sent_ns": sent}).encode())
        line = json.loads(journal.getvalue().splitlines()[-1])
        assert (line["host"], line["at_ms"], line.get("arrive_ms", line["at_ms"])) == (
            "cancel", expected / MS, clock.now / MS)
    before = journal.getvalue()
    console.commands.on_command(b'{"action": "next", "sent_ns": "soon"}')
    assert journal.getvalue() == before  # refused, nothing journalled or judged
    (error,) = [e for e in events if e["type"] == "error" and e.get("source") == "mqtt"]
    assert "sent_ns must be an integer" in str(error["message"])


def test_a_box_lost_in_the_window_is_waited_for_and_its_press_judged_when_back() -> None:
    """The runtime hands a button source's loss and return to the referee (`SourceLink`, from
    its status): the window waits for it (004 App.4 by the press's time, IV 4.4), the press
    it sends when back takes the turn, the journal keeps it all and replays to the same."""
    clock = Clock()
    journal = io.StringIO()
    console = Console(load_config(DEMO_TOML), clock=clock, journal=journal)
    events: list[dict[str, object]] = []
    console.wire_watchers.append(events.append)
    sources = console.sources
    sources.report_status("sim", "connected", "The simulated MCU is connected.")
    console.host(HostAction.NEXT)
    clock.now += 100 * MS
    console.host(HostAction.READING_FINISHED)
    start = clock.now
    clock.now += 2 * S
    sources.report_status("sim", "disconnected", "The MCU on /dev/pts/9 was disconnected.")
    clock.now = start + 9 * S  # the 7 s are over: nothing is decided while the box is away
    console.fire_due()
    assert [e["type"] for e in events if e["type"] in ("signals_held", "question_ended")] == ["signals_held"]
    sources.report_status("sim", "connected", "The simulated MCU is connected.")
    press(console, 3, start + 4 * S)  # Глеб pressed 4 s in, sent again by the box
    (accepted,) = [e for e in events if e["type"] == "signal_accepted"]
    # Its watermark says nothing was lost (it sent all it stamped again): nothing to put to
    # the host (issue 31; a box that could not says so: tests/test_rules_lost_source.py).
    assert accepted["player"] == "p4" and "inputs_lost" not in accepted
    out, err = io.StringIO(), io.StringIO()
    assert replay_lines(journal.getvalue().splitlines(), "journal", out, err) == 0, err.getvalue()
    replayed = [json.loads(line) for line in out.getvalue().splitlines()]
    kinds = ("signals_held", "signals_resumed", "signal_accepted")
    assert [e["type"] for e in replayed if e["type"] in kinds] == list(kinds)


def test_a_verdict_given_in_time_during_a_hold_ends_the_round_before_time_is_called() -> None:
    """The ChGK table: the team answers within the minute (003 6.1.4) and the host keys the
    verdict 100 ms before the minute runs out, while the console is held up past its end; sent
    with its time (``sent_ns``), the round ends on the verdict and time is never called (the
    hall hears no gong). The decisions due before it are taken first, each at its own time:
    the 10-second warning."""
    clock = Clock()
    console = Console(load_config(DEMO_CHGK), clock=clock)
    events: list[dict[str, object]] = []
    console.wire_watchers.append(events.append)
    for command in ({"action": "pick_sector", "sector": 2}, {"action": "start_timer"}):
        clock.now += 100 * MS
        console.commands.on_command(json.dumps(command).encode())
    (started,) = [e for e in events if e["type"] == "timer_started"]
    end = started["deadline_ns"]
    assert isinstance(end, int)
    clock.now = end + 1 * S  # held up across the minute's end
    console.commands.on_command(json.dumps({"action": "answer_correct", "sent_ns": end - 100 * MS}).encode())
    kinds = [e["type"] for e in events]
    assert "time_up" not in kinds and "round_ended" in kinds, kinds
    assert kinds.index("timer_warning") < kinds.index("round_ended")
    (warning,) = [e["t_ns"] for e in events if e["type"] == "timer_warning"]
    assert isinstance(warning, int) and warning < end  # at its own time, not when the console ran again


async def test_a_command_kept_by_the_broker_through_a_hold_is_read_before_the_late_deadline(
        mosquitto: Broker, tmp_path: Path) -> None:
    """004 App.7, on the real loop and broker: the host's «Начал отвечать» is sent 200 ms
    before the 3 s (here 0.6 s) end while the console is held up; after the hold the box's
    heartbeat, stamped after the deadline, happens to be read first. The hold is read out
    before the deadline is judged, the broker caught up with by a round trip through it, so
    the command still counts and the answerer is not timed out; the heartbeat waits for the
    decision."""
    config = tmp_path / "console.toml"
    config.write_text(DEMO_TOML.read_text(encoding="utf-8").replace(
        "answer_clock = \"host\"", "answer_clock = \"host\"\nanswer_window_s = 0.6"), encoding="utf-8")
    console = Console(load_config(config))
    events: list[dict[str, object]] = []
    console.wire_watchers.append(events.append)
    told = asyncio.Event()  # the answer was taken or timed out
    console.wire_watchers.append(lambda e: told.set() if e["type"] in ("answer_started", "answer_judged")
                                 else None)
    ready = asyncio.Event()
    task = asyncio.create_task(console.run(mosquitto.host, mosquitto.port, on_ready=ready.set))
    try:
        await asyncio.wait_for(ready.wait(), 10)
        console.host(HostAction.NEXT)
        console.host(HostAction.READING_FINISHED)
        press(console, 0, time.monotonic_ns())
        await asyncio.sleep(0.05)  # the box's delay: the press settles
        console.host(HostAction.NAME)
        deadline = next(e for e in events if e["type"] == "answer_clock_started")["deadline_ns"]
        assert isinstance(deadline, int)

        def tablet() -> None:  # the host's tablet, while the console is held up
            client = mqtt.Client(CallbackAPIVersion.VERSION2)
            client.connect(mosquitto.host, mosquitto.port)
            client.loop_start()
            while time.monotonic_ns() < deadline - 200 * MS:
                time.sleep(0.005)
            sent = json.dumps({"action": "answer_started", "sent_ns": time.monotonic_ns()})
            client.publish(console.topics.command, sent, qos=1).wait_for_publish(5)
            client.loop_stop()
            client.disconnect()

        def held_up() -> None:  # a stall of the Pi across the deadline
            thread = threading.Thread(target=tablet)
            thread.start()
            thread.join()
            while time.monotonic_ns() < deadline + 400 * MS:
                time.sleep(0.01)
            # The box's heartbeat is read first after the stall, stamped after the deadline.
            McuFeed(console.sources, "sim").watermark(Watermark(time.monotonic_ns()))

        asyncio.get_running_loop().call_soon(held_up)
        await asyncio.wait_for(told.wait(), 5)
        kinds = [e["type"] for e in events]
        assert "console_held" in kinds
        assert [k for k in kinds if k in ("answer_started", "answer_judged")] == ["answer_started"], events
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def test_one_unplug_is_one_source_status_event() -> None:
    """Issue 34: a box unplugged is lost («end of file») and then cannot be opened again for a
    while («cannot open»): the same state, said once to the host (both reasons are logged)."""
    console, _clock, events, _journal = held_console()
    sources = console.sources
    sources.report_status("sim", "disconnected", "The MCU on /dev/pts/9 was disconnected (end of file).")
    sources.report_status("sim", "disconnected", "Cannot open /dev/pts/9: it does not exist.")
    sources.report_status("sim", "connected", "The simulated MCU is connected.")
    said = [(e["state"], e["detail"]) for e in events if e["type"] == "source_status"]
    assert said[-2:] == [("disconnected", "The MCU on /dev/pts/9 was disconnected (end of file)."),
                         ("connected", "The simulated MCU is connected.")]
    assert [e["state"] for e in events if e["type"] == "source_status"].count("disconnected") == 1


def test_a_short_hold_past_a_deadline_is_not_said_as_nought_seconds() -> None:
    """Found at the table: a 1-s stop of the console ended 30 ms past the count's warning, and
    the host read «Пульт задержался на 0,0 с». Under a tenth of a second the figure has two
    decimals; from there, one."""
    from console.notices import ConsoleHeld
    from console.texts import describe_notice

    def said(ms: float) -> str | None:
        return describe_notice(ConsoleHeld(t_ns=0, held_ms=ms, deadline_ns=0), {}, {})

    assert (said(30.0) or "").startswith("Пульт задержался на 0,03 с")
    assert (said(1234.0) or "").startswith("Пульт задержался на 1,2 с")
