"""End to end: a press on the simulated MCU (real serial driver over a pty) to an MQTT display.

A real mosquitto runs on a free loopback port; every payload seen is validated against the
JSON Schemas in schemas/.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path

import aiomqtt
import pytest

from console.engine.model import HostAction
from console.shell.runtime import Console
from console.sources.mcu import add_mcu
from drivers.sim_mcu import SimulatedMcu
from tests.conftest import Broker, daemon_config, start_mosquitto, until
from tests.engine_harness import svoya_of
from tests.support.mqtt_console import command, display, running_console, table_config

ROOT = Path(__file__).resolve().parent.parent


async def test_press_on_the_mcu_reaches_the_display_and_lights_the_lamp(mosquitto: Broker) -> None:
    async with running_console(mosquitto) as (_console, sim), display(mosquitto, "chgk/t1/#") as d:
        await command(mosquitto, b'{"action": "next"}')
        await d.wait_for(lambda: d.events("question_started"))
        pressed_at = sim.press(1)
        accepted = await d.wait_for(lambda: d.events("signal_accepted"))
        assert accepted[0]["player"] == "p2"
        # The decision carries the MCU's time of the press, mapped onto the host clock (to the
        # clock fit's error: its precision is checked in test_mcu_session and test_mcu_serial;
        # 5 ms leaves room for a fit made of few pings on a loaded machine, seen at 2.4 ms).
        assert abs(accepted[0]["press_at_ns"] - pressed_at) < 5_000_000
        assert sim.wait_lamps(lambda on, blink: on == 0b10, timeout=2.0) is not None
        await command(mosquitto, b'{"action": "correct"}')
        ended = await d.wait_for(lambda: d.events("question_ended"))
        assert ended[0]["scores"] == {"p1": 0, "p2": 10, "p3": 0}
        assert sim.wait_lamps(lambda on, blink: on == 0, timeout=2.0) is not None


async def test_a_display_that_connects_late_gets_the_state_at_once(mosquitto: Broker) -> None:
    async with running_console(mosquitto) as (console, sim):
        console.host(HostAction.NEXT)
        # Not within the clock model's error (~0.1 ms) of the announcement: that press could
        # map to just before it, a false start.
        await asyncio.sleep(0.02)
        sim.press(2)
        await until(lambda: svoya_of(console).phase == "answering")
        await asyncio.sleep(0.05)  # the retained state follows the event by 5 ms
        async with display(mosquitto, "chgk/t1/state", "chgk/t1/status") as late:
            state = await late.wait_for(
                lambda: [p for t, p in late.seen if t.endswith("/state")])
            assert state[-1]["phase"] == "answering"
            assert state[-1]["question"]["answerer"] == "p3"
            status = await late.wait_for(
                lambda: [p for t, p in late.seen if t.endswith("/status")])
            assert status[-1]["state"] == "online"
            assert status[-1]["sources"] == {"mcu": "connected"}


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        (b"not json", "bad host command"),
        (b'{"action": "dance"}', "bad host command"),
        (b'{"action": "next", "value": 50}', "unknown key"),
        (b'["next"]', "expected a JSON object"),
        (b'{"action": "correct"}', "сейчас нельзя"),
        (b"[" * 4000, "too deeply nested"),
        (b'{"action": "\\ud800"}', "not valid Unicode"),
        (b'{"action": "' + b"x" * 10_000 + b'"}', "too large (at most 4096)"),
        # An unknown action is quoted back, shortened: the error event stays small.
        (('{"action": "' + "\x7f" * 4000 + '"}').encode(), "more characters)"),
        ('{"action": "дальше"}'.encode(), "'дальше' is not a valid HostAction"),
    ],
)
async def test_bad_host_commands_are_errors_and_change_nothing(
    mosquitto: Broker, payload: bytes, words: str
) -> None:
    async with running_console(mosquitto) as (console, _sim), display(mosquitto, "chgk/t1/events") as d:
        before = svoya_of(console).snapshot(0)
        await command(mosquitto, payload)
        error = await d.wait_for(lambda: d.events("error"))
        assert words in error[0]["message"]
        assert len(error[0]["message"]) <= 2100  # it may quote the command: never all of it
        assert svoya_of(console).snapshot(0) == before


async def test_press_from_a_pad_with_no_player_is_reported(mosquitto: Broker) -> None:
    async with running_console(mosquitto, players=2) as (console, sim), \
            display(mosquitto, "chgk/t1/events") as d:
        await command(mosquitto, b'{"action": "next"}')
        await d.wait_for(lambda: d.events("question_started"))
        sim.press(3)
        error = await d.wait_for(lambda: d.events("error"))
        assert "mcu:3" in error[0]["message"]
        assert svoya_of(console).scores == {"p1": 0, "p2": 0}
        assert svoya_of(console).phase == "reading"


async def test_the_game_goes_on_after_the_mcu_is_unplugged_and_plugged_back(
    mosquitto: Broker, tmp_path: Path
) -> None:
    link = str(tmp_path / "by-id-mcu")
    sim = SimulatedMcu(pads=4, link_path=link)
    sim.start()
    console = Console(table_config(link))
    add_mcu(console.sources, "mcu", link, 115200)
    # The display subscribes first: the console's "connected" may come at once.
    async with display(mosquitto, "chgk/t1/events") as d:
        task = asyncio.create_task(console.run(mosquitto.host, mosquitto.port))
        try:
            await d.wait_for(lambda: [e for e in d.events("source_status") if e["state"] == "connected"])
            console.host(HostAction.NEXT)
            sim.unplug()
            await d.wait_for(lambda: [e for e in d.events("source_status")
                                      if e["state"] == "disconnected"])
            sim.replug()
            await d.wait_for(lambda: len([e for e in d.events("source_status")
                                          if e["state"] == "connected"]) == 2)
            sim.press(0)
            accepted = await d.wait_for(lambda: d.events("signal_accepted"))
            assert accepted[0]["player"] == "p1"
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            sim.stop()


@pytest.mark.parametrize("how", ["crash", "stop"])
async def test_status_goes_offline_on_a_clean_stop_and_by_the_last_will(
    mosquitto: Broker, tmp_path: Path, how: str
) -> None:
    config = daemon_config(tmp_path, f'host = "{mosquitto.host}"\nport = {mosquitto.port}')
    async with display(mosquitto, "chgk/t1/status") as d:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "console.cli", "run", "--config", str(config),
            cwd=ROOT, stderr=open(tmp_path / "daemon.log", "wb"),  # noqa: ASYNC230, SIM115
        )
        try:
            await d.wait_for(lambda: [p for _, p in d.seen if p["state"] == "online"], within=15)
            os.kill(proc.pid, signal.SIGKILL if how == "crash" else signal.SIGTERM)
            offline = await d.wait_for(lambda: [p for _, p in d.seen if p["state"] == "offline"],
                                       within=15)
            assert offline
        finally:
            if proc.returncode is None:
                proc.kill()
            await proc.wait()


async def test_a_display_joining_mid_countdown_gets_a_fresh_remaining_time(mosquitto: Broker) -> None:
    async with running_console(mosquitto) as (console, _sim):
        console.host(HostAction.NEXT)
        console.host(HostAction.READING_FINISHED)  # the 7-s window starts
        await asyncio.sleep(1.5)
        async with display(mosquitto, "chgk/t1/state") as late:
            state = await late.wait_for(lambda: [p for _, p in late.seen])
            timer = state[0]["timer"]
            assert timer["kind"] == "signal"
            # Republished every 0.5 s while the window runs: at most ~0.5 s stale, not 1.5 s.
            assert 4_500 <= timer["remaining_ms"] <= 6_000


async def test_the_game_goes_on_while_the_broker_restarts_and_the_console_reconnects(
    tmp_path: Path
) -> None:
    """The broker is not the game: a press while it is away is judged and lights the lamp;
    once it is back the console reconnects on its own, republishes the state and takes
    commands again."""
    proc, port = start_mosquitto(tmp_path)
    broker = Broker("127.0.0.1", port)
    try:
        async with running_console(broker) as (console, sim):
            assert console.mqtt is not None
            console.host(HostAction.NEXT)
            proc.terminate()
            proc.wait(timeout=5)
            await until(lambda: console.mqtt is not None and not console.mqtt.connected)
            sim.press(1)
            await until(lambda: sim.lamps == (1 << 1, 0))  # judged without the broker
            assert svoya_of(console).phase == "answering"
            proc, _ = start_mosquitto(tmp_path, port=port)
            async with display(broker, "chgk/t1/state", "chgk/t1/events") as d:
                state = await d.wait_for(
                    lambda: [p for t, p in d.seen if t.endswith("/state") and p["question"]
                             and p["question"]["answerer"] == "p2"])
                assert state[-1]["phase"] == "answering"
                await command(broker, b'{"action": "correct"}')
                judged = await d.wait_for(lambda: d.events("answer_judged"))
                assert judged[0]["player"] == "p2" and judged[0]["correct"] is True
            assert svoya_of(console).scores["p2"] == 10
    finally:
        proc.terminate()
        proc.wait(timeout=5)



async def test_a_display_that_joins_after_the_broker_restarted_empty_gets_the_retained_state(
    tmp_path: Path
) -> None:
    """mosquitto restarted without persistence holds no retained message: once the console is
    connected again it sends its retained topics again (the status, the state) whether or not
    anything changed, so a hall board switched on later still shows the game at once."""
    proc, port = start_mosquitto(tmp_path)
    broker = Broker("127.0.0.1", port)
    try:
        async with running_console(broker) as (console, _sim):
            assert console.mqtt is not None
            async with display(broker, "chgk/t1/state", "chgk/t1/status") as before:
                await before.wait_for(lambda: [p for t, p in before.seen if t.endswith("/state")])
            proc.terminate()
            proc.wait(timeout=5)
            await until(lambda: console.mqtt is not None and not console.mqtt.connected)
            proc, _ = start_mosquitto(tmp_path, port=port)  # a fresh broker: nothing retained
            await until(lambda: console.mqtt is not None and console.mqtt.connected, within=10)
            await asyncio.sleep(0.3)  # nothing changes in the game meanwhile
            async with display(broker, "chgk/t1/state", "chgk/t1/status") as late:
                state = await late.wait_for(lambda: [p for t, p in late.seen if t.endswith("/state")])
                status = await late.wait_for(lambda: [p for t, p in late.seen if t.endswith("/status")])
                assert state[0]["phase"] == "idle" and status[0]["state"] == "online"
    finally:
        proc.terminate()
        proc.wait(timeout=5)


async def test_a_problem_at_start_reaches_the_displays_once_the_link_is_up(mosquitto: Broker) -> None:
    """A journal on a full card fails before the console has an MQTT link: its error event is
    kept and published first, numbered 1, once the link is up (not lost, no gap)."""
    with open("/dev/full", "w", encoding="utf-8") as journal:  # noqa: ASYNC230 - a device, instant
        console = Console(table_config("/dev/ttyNOPE"), journal=journal)
        async with display(mosquitto, "chgk/t1/events") as d:
            task = asyncio.create_task(console.run(mosquitto.host, mosquitto.port))
            try:
                said = await d.wait_for(lambda: d.events("journal_status"))
                assert said[0]["state"] == "failing" and said[0]["seq"] == 1
                console.host(HostAction.NEXT)
                started = await d.wait_for(lambda: d.events("question_started"))
                assert started[0]["seq"] == 2
            finally:
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task


async def test_a_retained_command_is_reported_and_never_executed(mosquitto: Broker) -> None:
    """A retained `next` left on the command topic would replay at every reconnect: the
    console reports it and does not play it; a live command still works."""
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as client:
        await client.publish("chgk/t1/host/command", b'{"action": "next"}', qos=1, retain=True)
    async with display(mosquitto, "chgk/t1/events") as d, running_console(mosquitto) as (console, _sim):
        errors = await d.wait_for(lambda: [e for e in d.events("error") if "retained" in e["message"]])
        assert "mosquitto_pub -r -n -t chgk/t1/host/command" in errors[0]["message"]
        assert svoya_of(console).phase == "idle" and not d.events("question_started")
        await command(mosquitto, b'{"action": "next"}')
        await d.wait_for(lambda: d.events("question_started"))


async def flat_topics(broker: Broker, seconds: float = 1.0) -> dict[str, bytes]:
    """What a show-control client joining now gets of the retained flat topics."""
    got: dict[str, bytes] = {}
    async with aiomqtt.Client(broker.host, broker.port) as client:
        await client.subscribe("chgk/t1/flat/#", qos=1)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                async for message in client.messages:
                    assert isinstance(message.payload, bytes)
                    got[str(message.topic)] = message.payload
    return got


async def test_a_player_who_left_has_no_flat_topics_left(mosquitto: Broker) -> None:
    """Show control reads the flat topics (console/shell/flat_topics.py): a player removed from
    the tablet (issue 19) leaves no stale score for a Companion button joining later."""
    async with running_console(mosquitto) as (console, _sim):
        before = await flat_topics(mosquitto)
        assert before["chgk/t1/flat/score/p3"] == b"0"
        assert before["chgk/t1/flat/name/p3"] == "Игрок 3".encode()
        console.commands.on_command(b'{"action": "remove_player", "player": "p3"}')
        await asyncio.sleep(0.3)  # the state, then its flat topics, published
        after = await flat_topics(mosquitto)
        assert "chgk/t1/flat/score/p1" in after
        assert not [t for t in after if "/p3" in t], after


async def test_a_retained_show_control_command_names_its_own_topic_to_clear(mosquitto: Broker) -> None:
    """Issue 31: a retained plain command on host/do/<action> (a show controller's button) was
    reported with how to clear host/command; the operator must clear host/do/<action>."""
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as client:
        await client.publish("chgk/t1/host/do/next", b"1", qos=1, retain=True)  # a button's press, kept
    async with display(mosquitto, "chgk/t1/events") as d, running_console(mosquitto) as (console, _sim):
        errors = await d.wait_for(lambda: [e for e in d.events("error") if "retained" in e["message"]])
        assert "mosquitto_pub -r -n -t chgk/t1/host/do/next" in errors[0]["message"]
        assert svoya_of(console).phase == "idle"
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as client:
        await client.publish("chgk/t1/host/do/next", b"", qos=1, retain=True)
