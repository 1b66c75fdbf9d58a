"""Sony Buzz! buzzers: the report layout, the hidraw driver against a fake controller that sends
the real report bytes over a pty, finding the controller in sysfs, unplug/replug, and the
«Своя игра» referee judging Buzz! presses at the resolution the device really has (10 ms).

The byte vectors are written out from the sources named in drivers/buzz_report.py (hid-sony's
buzz_set_leds, PCSX2's usb-buzz descriptors), not produced by the codec under test.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from console.config import ConfigError
from console.engine.events import Event
from console.engine.svoya.events import QuestionEnded, SignalAccepted
from console.games import config_from_dict
from console.notices import SourceStatus
from console.shell.runtime import Console
from console.sources.buzz import BuzzSettings, add_buzz
from drivers.buzz import BuzzLink, find_buzz
from drivers.buzz_fake import FakeBuzz
from drivers.buzz_report import buttons, input_report, lamp_report, newly_pressed, selection
from tests.conftest import Broker, until
from tests.daemon_process import daemon_process
from tests.support.clock import Clock
from tests.support.mqtt_console import command, display

MS = 1_000_000


# ---------------------------------------------------------------------------------- the reports

@pytest.mark.parametrize(("report", "handset", "colour"), [
    ("7f7f0100f0", 0, "red"),      # byte 2 bit 0
    ("7f7f1000f0", 0, "blue"),     # byte 2 bit 4
    ("7f7f2000f0", 1, "red"),      # byte 2 bit 5
    ("7f7f0004f0", 2, "red"),      # byte 3 bit 2
    ("7f7f0080f0", 3, "red"),      # byte 3 bit 7
    ("7f7f0000f8", 3, "blue"),     # byte 4 bit 3
])
def test_one_button_of_a_real_report(report: str, handset: int, colour: str) -> None:
    data = bytes.fromhex(report)
    red = selection(("red",))
    down = newly_pressed(0, buttons(data), red)
    assert down == ((handset,) if colour == "red" else ())
    assert newly_pressed(0, buttons(data), selection((colour,))) == (handset,)
    assert input_report(buttons(data)) == data  # what the fake sends is what the controller sends


def test_lamp_write_is_report_number_then_the_output_report() -> None:
    # hid-sony buzz_set_leds: [0x00, L1, L2, L3, L4, 0x00, 0x00]; hidraw: report number 0 first.
    assert lamp_report(0b0101) == bytes.fromhex("0000ff00ff000000")
    assert lamp_report(0) == bytes(8)


def test_a_handset_is_pressed_once_until_its_buzzer_buttons_are_all_up() -> None:
    both = selection(("red", "blue"))
    red, blue = buttons(bytes.fromhex("7f7f0100f0")), buttons(bytes.fromhex("7f7f1000f0"))
    assert newly_pressed(0, red, both) == (0,)
    assert newly_pressed(red, red | blue, both) == ()  # still the same press
    assert newly_pressed(red | blue, 0, both) == ()
    with pytest.raises(ValueError, match="buzzer buttons"):
        selection(("purple",))
    with pytest.raises(ValueError, match="5 bytes"):
        buttons(b"\x7f\x7f\x01\x00")


# ---------------------------------------------------------------------------------- the driver

class Rig:
    def __init__(self) -> None:
        self.reports: list[tuple[tuple[int, ...], int]] = []
        self.status: list[tuple[str, str]] = []
        self.errors: list[str] = []

    def link(self, port: str, **kwargs: object) -> BuzzLink:
        return BuzzLink(port, on_report=lambda h, at: self.reports.append((h, at)),
                        on_status=lambda s, d: self.status.append((s, d)),
                        on_error=self.errors.append, retry_interval=0.05, **kwargs)  # type: ignore[arg-type]

    def presses(self) -> list[tuple[int, ...]]:
        return [h for h, _ in self.reports if h]


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[FakeBuzz]:
    with FakeBuzz(link_path=str(tmp_path / "buzz")) as device:
        yield device


@asynccontextmanager
async def running(link: BuzzLink) -> AsyncIterator[BuzzLink]:
    link.start(asyncio.get_running_loop())
    try:
        yield link
    finally:
        link.close()


async def test_presses_of_the_red_buttons_with_the_reports_arrival(fake: FakeBuzz) -> None:
    rig = Rig()
    async with running(rig.link(fake.port)) as link:
        assert link.connected and rig.status[-1][0] == "connected"
        fake.press(2, "yellow")  # not a buzzer button: a report, no press
        sent = fake.press(1)
        await until(lambda: link.reports == 2)
        assert rig.reports[0][0] == ()
        assert rig.reports[1][0] == (1,)
        assert sent <= rig.reports[1][1] < sent + 500 * MS  # stamped on arrival, after the write
        fake.press_together(0, 3)  # one poll: one report, one stamp
        await until(lambda: link.reports == 3)
        assert rig.reports[2][0] == (0, 3)
        fake.release(1)
        fake.press(1)  # pressed again: a new press
        await until(lambda: link.reports == 5)
        assert rig.presses() == [(1,), (0, 3), (1,)]
    assert rig.errors == []


async def test_configured_buzzer_buttons(fake: FakeBuzz) -> None:
    rig = Rig()
    async with running(rig.link(fake.port, buzzer_buttons=("blue",))) as link:
        fake.press(0, "red")
        fake.press(0, "blue")
        await until(lambda: link.reports == 2)
        assert rig.presses() == [(0,)]


async def test_lamps_on_and_blinking_reach_the_controller(fake: FakeBuzz) -> None:
    rig = Rig()
    async with running(rig.link(fake.port)) as link:
        link.set_lamps(0b0010, 0)
        assert await asyncio.to_thread(fake.wait_lamps, lambda lit: lit == 0b0010, 2.0) == 0b0010
        link.set_lamps(0, 0b1000)  # blinking: lit, dark, lit... every 250 ms
        await until(lambda: [lit for _, lit in fake.lamp_log][-3:] == [0b1000, 0, 0b1000], within=3.0)
        times = [at for at, _ in fake.lamp_log[-3:]]
        # Never faster than its 250-ms phase (a loaded machine can only make it slower: no
        # upper bound here, a timing window would fail by chance).
        assert times[1] - times[0] > 0.15e9 and times[2] - times[1] > 0.15e9
        link.set_lamps(0, 0)
        assert await asyncio.to_thread(fake.wait_lamps, lambda lit: lit == 0, 2.0) == 0
        await asyncio.sleep(0.6)
        assert fake.lamp_log[-1][1] == 0  # the blinking stopped
    assert fake.bad_writes == []


async def test_unplug_and_replug_are_survived_and_the_lamps_come_back(fake: FakeBuzz) -> None:
    rig = Rig()
    async with running(rig.link(fake.port)) as link:
        link.set_lamps(0b0100, 0)
        await asyncio.to_thread(fake.wait_lamps, lambda lit: lit == 0b0100, 2.0)
        fake.press(0)
        await until(lambda: link.reports == 1)
        fake.unplug()
        await until(lambda: not link.connected)
        assert rig.status[-1][0] == "disconnected"
        link.set_lamps(0b0110, 0)  # while unplugged: kept for the replug
        fake.replug()
        await until(lambda: link.connected, within=3.0)
        assert rig.status[-1][0] == "connected"
        assert await asyncio.to_thread(fake.wait_lamps, lambda lit: lit == 0b0110, 2.0) == 0b0110
        fake.press(3)
        await until(lambda: link.reports == 2)
        assert rig.presses() == [(0,), (3,)]
    assert [s for s, _ in rig.status] == ["connected", "disconnected", "connected"]


async def test_a_missing_device_is_said_plainly_and_picked_up_when_it_appears(tmp_path: Path) -> None:
    rig = Rig()
    path = tmp_path / "buzz"
    async with running(rig.link(str(path))) as link:
        assert rig.status == [("disconnected", f"{path} does not exist (unplugged?)")]
        with FakeBuzz(link_path=str(path)) as device:
            await until(lambda: link.connected, within=3.0)
            device.press(2)
            await until(lambda: link.reports == 1)
        assert rig.presses() == [(2,)]
    assert len(rig.status) == 2  # said once, not once per retry


# ---------------------------------------------------------------------------------- sysfs

def fake_sysfs(root: Path, node: str, hid_id: str, interval: str | None = "10ms") -> Path:
    """sysfs as the kernel lays it out: class/hidraw/<node>/device -> the HID device, under the
    USB interface whose ep_81 says the poll interval."""
    interface = root / "devices" / "pci0000:00" / "usb1" / "1-1" / "1-1:1.0"
    hid = interface / f"{hid_id.replace(':', '_')}.0001"
    hid.mkdir(parents=True)
    (hid / "uevent").write_text(f"DRIVER=sony\nHID_ID={hid_id}\nHID_NAME=Logitech Buzz(tm) Controller V1\n")
    if interval is not None:
        (interface / "ep_81").mkdir()
        (interface / "ep_81" / "interval").write_text(interval + "\n")
    (root / "class" / "hidraw" / node).mkdir(parents=True)
    (root / "class" / "hidraw" / node / "device").symlink_to(hid)
    return root


def test_find_buzz_by_usb_ids(tmp_path: Path) -> None:
    sysfs = tmp_path / "sys"
    assert find_buzz(sysfs, "/dev") is None
    fake_sysfs(sysfs, "hidraw0", "0003:0000046D:0000C077")  # a mouse
    assert find_buzz(sysfs, "/dev") is None
    (sysfs / "devices").rename(tmp_path / "mouse")
    (sysfs / "class" / "hidraw" / "hidraw0" / "device").unlink()
    (sysfs / "class" / "hidraw" / "hidraw0" / "device").symlink_to(
        tmp_path / "mouse" / "pci0000:00" / "usb1" / "1-1" / "1-1:1.0" / "0003_0000046D_0000C077.0001")
    fake_sysfs(sysfs, "hidraw3", "0003:0000054C:00001000")
    found = find_buzz(sysfs, "/dev")
    assert found is not None
    assert (found.path, found.interval_us) == ("/dev/hidraw3", 10_000)
    assert found.product == "Sony Buzz! (wireless receiver)"


async def test_found_without_a_port_and_the_poll_interval_is_reported(tmp_path: Path, fake: FakeBuzz) -> None:
    sysfs, dev = fake_sysfs(tmp_path / "sys", "hidraw5", "0003:0000054C:00000002", "10ms"), tmp_path / "dev"
    dev.mkdir()
    assert fake.slave_path is not None
    (dev / "hidraw5").symlink_to(fake.slave_path)
    rig = Rig()
    async with running(rig.link("", sysfs=sysfs, devdir=dev)) as link:
        assert rig.status == [("connected", f"Sony Buzz! (wired) at {dev / 'hidraw5'}, polled every 10 ms")]
        fake.press(0)
        await until(lambda: link.reports == 1)
    assert rig.errors == []
    # Declaring a finer resolution than the poll is reported (the referee would misjudge).
    rig = Rig()
    async with running(rig.link("", sysfs=sysfs, devdir=dev, resolution_us=1000)):
        assert rig.errors and "declare resolution_us = 10000" in rig.errors[0]


async def test_no_buzz_and_a_configured_node_that_is_another_device(tmp_path: Path) -> None:
    sysfs = tmp_path / "sys"
    rig = Rig()
    async with running(rig.link("", sysfs=sysfs, devdir=tmp_path)):
        pass
    missing = f"no Sony Buzz! (054c:0002, 054c:1000) among {sysfs}/class/hidraw"
    assert rig.status == [("disconnected", missing)]
    fake_sysfs(sysfs, "hidraw1", "0003:0000046D:0000C077")
    node = tmp_path / "hidraw1"
    node.write_bytes(b"")
    rig = Rig()
    async with running(rig.link(str(node), sysfs=sysfs)) as link:
        assert not link.connected
    assert rig.status == [("disconnected", f"{node} is USB device 046d:c077, not a Sony Buzz! "
                                           f"(054c:0002, 054c:1000)")]


# ---------------------------------------------------------------------------------- config

def buzz_config(**source: object) -> dict[str, object]:
    return {
        "console": {"node": "t1", "journal": ""},
        "game": {"tie_policy": "pad_order"},
        "players": [{"id": f"p{i + 1}", "name": f"Игрок {i + 1}", "pad": f"buzz:{i}"} for i in range(4)],
        "sources": {"buzz": {"kind": "buzz", **source}},
        "sound": {"enabled": False},
    }


def test_a_buzz_source_declares_its_poll_interval() -> None:
    buzz = config_from_dict(buzz_config(), "test").sources["buzz"]
    assert isinstance(buzz, BuzzSettings)
    assert (buzz.resolution_us, buzz.max_delay_ms, buzz.buzzer_buttons) == (10_000, 20.0, ("red",))
    with pytest.raises(ConfigError, match="resolution_us: a Buzz! reports once per USB poll"):
        config_from_dict(buzz_config(resolution_us=1000), "test")
    with pytest.raises(ConfigError, match="buzzer_buttons"):
        config_from_dict(buzz_config(buzzer_buttons=["purple"]), "test")
    with pytest.raises(ConfigError, match="expected an array of strings"):
        config_from_dict(buzz_config(buzzer_buttons="red"), "test")
    bad = buzz_config()
    bad["players"] = [{"id": "p1", "name": "A", "pad": "buzz:0"}, {"id": "p2", "name": "B", "pad": "buzz:4"}]
    with pytest.raises(ConfigError, match=r"pads 0\.\.3"):
        config_from_dict(bad, "test")


# ---------------------------------------------------------------------------------- the referee

@asynccontextmanager
async def buzz_console(port: str) -> AsyncIterator[tuple[Console, BuzzLink, Clock, list[Event]]]:
    clock = Clock()
    console = Console(config_from_dict(buzz_config(port=port), "test"), clock=clock)
    link = add_buzz(console.sources, "buzz", port, resolution_us=10_000, retry_interval=0.05)
    events: list[Event] = []
    console.watchers.append(events.append)
    console.sources.start_local_inputs()
    try:
        yield console, link, clock, events
    finally:
        console.sources.close_local_inputs()


async def question(console: Console, clock: Clock) -> None:
    from console.engine.model import HostAction
    clock.now += 1_000 * MS
    console.host(HostAction.NEXT)


async def arrive(fake: FakeBuzz, link: BuzzLink, clock: Clock, at: int, *handsets: int) -> None:
    clock.now = at
    fake.press_together(*handsets) if len(handsets) > 1 else fake.press(handsets[0])
    reports = link.reports
    await until(lambda: link.reports > reports)


def accepted(events: list[Event]) -> list[SignalAccepted]:
    return [e for e in events if isinstance(e, SignalAccepted)]


@pytest.mark.parametrize(("apart_ms", "winner", "tie"), [(30, "p3", False), (5, "p2", True)])
async def test_the_referee_judges_buzz_presses_at_the_poll_resolution(
        fake: FakeBuzz, apart_ms: int, winner: str, tie: bool) -> None:
    """Seed 004 App.5: the first signal takes the turn; presses the source cannot tell apart
    (closer than its 10 ms poll) are a tie, broken here by pad order."""
    async with buzz_console(fake.port) as (console, link, clock, events):
        await question(console, clock)
        t0 = clock.now + 100 * MS
        await arrive(fake, link, clock, t0, 2)  # handset 3 ...
        await arrive(fake, link, clock, t0 + apart_ms * MS, 1)  # ... then handset 2
        # The first press waits for the next poll: a report within it is its tie; one a poll
        # later (and more) settles it at once.
        assert bool(accepted(events)) is not tie
        clock.now = t0 + 1_000 * MS  # the console's timer decides what is still open
        await until(lambda: accepted(events), within=2.0)
        decision = accepted(events)[0]
        assert (decision.player, decision.tie) == (winner, tie)
        assert decision.press_at_ns == (t0 if winner == "p3" else t0 + apart_ms * MS)
        if tie:
            assert decision.tied == ("p3", "p2")
        assert await asyncio.to_thread(fake.wait_lamps, lambda lit: lit == 1 << int(winner[1:]) - 1, 2.0)


async def test_handsets_in_one_report_are_a_tie(fake: FakeBuzz) -> None:
    async with buzz_console(fake.port) as (console, link, clock, events):
        await question(console, clock)
        await arrive(fake, link, clock, clock.now + 50 * MS, 3, 0)
        clock.now += 1_000 * MS
        await until(lambda: accepted(events), within=2.0)
        decision = accepted(events)[0]
        assert decision.tie and decision.player == "p1" and set(decision.tied or ()) == {"p1", "p4"}
        statuses = [e for e in events if isinstance(e, SourceStatus)]
        assert statuses and statuses[0].state == "connected"


def test_fake_writes_real_bytes_on_the_wire(fake: FakeBuzz) -> None:
    """The driver reads the pty's other end: what arrives there is the controller's report."""
    fd = os.open(fake.port, os.O_RDWR | os.O_NOCTTY)
    try:
        fake.press(1)
        assert os.read(fd, 64) == bytes.fromhex("7f7f2000f0")
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------------- as the club runs it

async def test_chgk_console_run_with_a_buzz(mosquitto: Broker, tmp_path: Path) -> None:
    """`chgk-console run` as a process, its [sources.buzz] port the fake controller's link: a
    press is judged and lights its handset's lamp; an unplug and a replug are reported and the
    game goes on."""
    link_path = tmp_path / "buzz-link"
    config = tmp_path / "console.toml"
    config.write_text(
        '[console]\nnode = "t1"\njournal = ""\n'
        + "".join(f'[[players]]\nid = "p{i + 1}"\nname = "Игрок {i + 1}"\npad = "buzz:{i}"\n'
                  for i in range(3))
        + f'[sources.buzz]\nkind = "buzz"\nport = "{link_path}"\n'
        + f'[mqtt]\nhost = "{mosquitto.host}"\nport = {mosquitto.port}\n'
        + '[sound]\nenabled = false\n[display]\nhttp_port = 0\n', encoding="utf-8")
    with FakeBuzz(link_path=str(link_path)) as fake:
        async with display(mosquitto, "chgk/t1/#") as d, daemon_process(config):
            await d.wait_for(lambda: [e for e in d.events("source_status") if e["state"] == "connected"], 15)
            await command(mosquitto, b'{"action": "next"}')
            await d.wait_for(lambda: d.events("question_started"))
            fake.press(1)
            decision = await d.wait_for(lambda: d.events("signal_accepted"))
            assert decision[0]["player"] == "p2"
            assert await asyncio.to_thread(fake.wait_lamps, lambda lit: lit == 0b0010, 3.0) == 0b0010
            fake.release(1)
            fake.unplug()
            await d.wait_for(lambda: [e for e in d.events("source_status") if e["state"] == "disconnected"])
            fake.replug()
            await d.wait_for(lambda: [e for e in d.events("source_status") if e["state"] == "connected"][1:])
            # The replugged controller came up dark: the console lit the answerer's lamp again.
            assert await asyncio.to_thread(fake.wait_lamps, lambda lit: lit == 0b0010, 3.0) == 0b0010
            await command(mosquitto, b'{"action": "correct"}')
            ended = await d.wait_for(lambda: d.events("question_ended"))
            assert ended[0]["scores"] == {"p1": 0, "p2": 10, "p3": 0}
            assert await asyncio.to_thread(fake.wait_lamps, lambda lit: lit == 0, 3.0) == 0
            assert d.events("error") == [], d.events("error")


async def test_a_receiver_unplugged_in_the_window_holds_it_until_it_is_back(fake: FakeBuzz) -> None:
    """The Buzz! receiver pulled out 1 s into the 7-s window (004 App.4): the window waits
    instead of running out; plugged back (it kept nothing: the handsets' presses meanwhile never
    reached it), the window, long over, closes at once, the end naming the span the receiver was
    away (inputs_lost: the host may withdraw the question and play it again, 004 IV 4.4)."""
    from console.engine.model import HostAction
    async with buzz_console(fake.port) as (console, _link, clock, events):
        await until(lambda: console.sources.status.get("buzz") == "connected")
        await question(console, clock)
        console.host(HostAction.READING_FINISHED)
        start = clock.now
        clock.now = start + 1_000 * MS
        fake.unplug()
        await until(lambda: console.sources.status.get("buzz") == "disconnected", within=5.0)
        clock.now = start + 8_000 * MS  # past the 7 s: nothing decided while it is away
        console.fire_due()
        assert not [e for e in events if e.TYPE == "question_ended"]
        fake.replug()
        await until(lambda: console.sources.status.get("buzz") == "connected", within=5.0)
        held = [e.TYPE for e in events if e.TYPE.startswith("signals_")]
        assert held == ["signals_held", "signals_resumed"]
        clock.now = start + 9_000 * MS
        console.fire_due()  # back with nothing to send: the window (long over) closes at once
        ended = [e for e in events if isinstance(e, QuestionEnded)]
        assert ended and ended[0].inputs_lost == ("buzz",)
