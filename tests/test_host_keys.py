"""The host's keys (issue 7): the evdev key reader, its config, and the keys playing a game.

Without /dev/uinput (this machine, CI) the reader is driven by tests/fake_keyboard.py: real
`struct input_event` records through a pty into the same decode and dispatch code that reads a
real device; only the opening differs. Where /dev/uinput exists, one test types on a real
kernel device made with evdev.UInput.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import struct
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from evdev import ecodes

from console.config import ConfigError, read_config
from console.engine.model import HostAction
from console.games import config_from_dict
from console.shell.host_keys import add_host_inputs, add_host_keys
from console.shell.runtime import Console
from drivers.evdev_keys import (
    EV_KEY,
    EVIOCSCLOCKID,
    INPUT_EVENT,
    KEY_DOWN,
    KEY_REPEAT,
    KEY_UP,
    STREAM,
    EventDecoder,
    InputEvent,
    KeyReader,
    pack_event,
)
from tests.engine_harness import svoya_of
from tests.fake_keyboard import FakeKeyboard

MS = 1_000_000
SVOYA = {
    "game": {"kind": "svoya"},
    "sources": {"mcu": {"kind": "simulated_mcu", "pads": 2}},
    "players": [{"id": "p1", "name": "Аня", "pad": "mcu:0"}, {"id": "p2", "name": "Боря", "pad": "mcu:1"}],
}


async def until(cond: Callable[[], object], within: float = 3.0) -> None:
    async with asyncio.timeout(within):
        while not cond():  # noqa: ASYNC110 - polls what a reader callback changes
            await asyncio.sleep(0.005)


# ------------------------------------------------------------------ the records


def test_the_record_is_the_kernels_struct_input_event() -> None:
    """linux/input.h: struct timeval (two longs), __u16 type, __u16 code, __s32 value."""
    long_size = struct.calcsize("@l")
    assert INPUT_EVENT.size == (24 if long_size == 8 else 16)
    raw = pack_event(12 * 10**9 + 345_678_000, EV_KEY, ecodes.KEY_SPACE, KEY_DOWN)
    assert raw == struct.pack("@llHHi", 12, 345_678, 1, 57, 1)
    # _IOW('E', 0xa0, int), as the kernel's headers compute it.
    assert EVIOCSCLOCKID == 0x400445A0


def test_the_decoder_waits_for_a_record_split_between_reads() -> None:
    data = pack_event(5 * 10**9, EV_KEY, 28, 1) + pack_event(5 * 10**9 + 1000, EV_KEY, 28, 0)
    decoder = EventDecoder()
    assert decoder.feed(data[:30]) == [InputEvent(5 * 10**9, EV_KEY, 28, 1)]
    assert decoder.feed(data[30:40]) == []
    assert decoder.feed(data[40:]) == [InputEvent(5 * 10**9 + 1000, EV_KEY, 28, 0)]


# ------------------------------------------------------------------ config


def host_config(host: dict[str, Any], base: dict[str, Any] = SVOYA) -> Any:
    return config_from_dict({**base, "host": host}, "console.toml")


def refused(host: dict[str, Any], base: dict[str, Any] = SVOYA) -> str:
    with pytest.raises(ConfigError) as caught:
        host_config(host, base)
    return str(caught.value)


def test_a_key_device_maps_key_names_to_actions() -> None:
    config = host_config({"keys": {"device": "/dev/input/by-id/usb-clicker-event-kbd",
                                   "KEY_SPACE": "reading_finished", "KEY_ENTER": "correct",
                                   "BTN_LEFT": "wrong"}})
    (keys,) = config.host.keys
    assert keys.kind == "evdev" and keys.name == "keys:usb-clicker-event-kbd"
    assert [(b.key, b.code, b.action) for b in keys.bindings] == [
        ("KEY_SPACE", 57, "reading_finished"), ("KEY_ENTER", 28, "correct"), ("BTN_LEFT", 272, "wrong")]


@pytest.mark.process  # the command as a process: what is tested
def test_without_python_evdev_only_host_keys_are_refused() -> None:
    """python-evdev is optional (a C extension with no wheels): a console without host keys loads
    its config without it; a config with keys gets a ConfigError naming the key and the fix.
    Run where `import evdev` fails (a fresh interpreter with it blocked)."""
    code = textwrap.dedent("""
        import sys
        sys.modules["evdev"] = None  # `import evdev` raises ImportError
        from console.config import ConfigError
        from console.games import config_from_dict
        base = {"players": [{"id": "a", "name": "A", "pad": "mcu:0"},
                            {"id": "b", "name": "B", "pad": "mcu:1"}],
                "sources": {"mcu": {"kind": "simulated_mcu", "pads": 2}}}
        assert config_from_dict(base, "c.toml").host.keys == ()
        try:
            config_from_dict({**base, "host": {"keys": {"device": "/dev/input/event3",
                                                         "KEY_SPACE": "reading_finished"}}}, "c.toml")
        except ConfigError as exc:
            print(exc)
    """)
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert "host.keys.KEY_SPACE" in done.stdout and "python3-evdev" in done.stdout, done.stdout


@pytest.mark.process  # the command as a process: what is tested
def test_the_console_imports_without_python_evdev() -> None:
    """Loading the console, its config and the game registry does not import python-evdev."""
    code = ("import sys; import console.config, console.games, console.shell.daemon; "
            "sys.exit('evdev' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_several_key_devices_as_an_array_of_tables() -> None:
    config = host_config({"keys": [{"device": "Logitech R400", "KEY_PAGEDOWN": "next"},
                                   {"device": "/dev/input/by-id/pedal", "KEY_B": "reading_finished"}]})
    assert [k.device for k in config.host.keys] == ["Logitech R400", "/dev/input/by-id/pedal"]


@pytest.mark.parametrize(
    ("host", "key", "words"),
    [
        ({"keys": {"device": "/dev/input/event3", "KEY_SPACEE": "next"}},
         "host.keys.KEY_SPACEE", "unknown key code 'KEY_SPACEE'"),
        ({"keys": {"device": "/dev/input/event3", "KEY_SPACE": "corect"}},
         "host.keys.KEY_SPACE", "'corect' is not a host action of game.kind = 'svoya'"),
        # Two names of one key (input-event-codes.h has aliases): one key, one action.
        ({"keys": {"device": "/dev/input/event3", "KEY_MUTE": "next", "KEY_MIN_INTERESTING": "cancel"}},
         "host.keys.KEY_MIN_INTERESTING", "the same key as host.keys.KEY_MUTE (code 113)"),
        ({"keys": {"KEY_SPACE": "next"}}, "host.keys.device", "is required"),
        ({"keys": {"device": "/dev/input/event3"}}, "host.keys", "maps no key"),
        ({"keys": {"device": "/dev/input/event3", "grab": False, "KEY_A": "next"}},
         "host.keys.grab", "unknown key"),
        ({"keys": {"device": "/dev/input/event3", "kind": "hid", "KEY_A": "next"}},
         "host.keys.kind", "'hid' is not one of evdev, stream"),
        ({"keys": {"device": "/dev/input/event3", "KEY_A": 5}}, "host.keys.KEY_A", "expected a host action"),
        ({"keys": [{"device": "/dev/input/event3", "KEY_A": "next"},
                   {"device": "/dev/input/event3", "KEY_B": "cancel"}]},
         "host.keys[2].device", "is already host.keys[1]'s"),
        ({"keys": "/dev/input/event3"}, "host.keys", "must be a table"),
        ({"pedals": [{"pin": 17, "action": "reading_finished"}, {"pin": 17, "action": "correct"}]},
         "host.pedals[2].pin", "pin 17 is already host.pedals[1].pin's"),
        ({"pedal_pin": 17, "pedals": [{"pin": 17, "action": "correct"}]},
         "host.pedals[1].pin", "pin 17 is already host.pedal_pin's"),
        ({"pedals": [{"pin": 27, "action": "start"}]},
         "host.pedals[1].action", "'start' is not a host action of game.kind = 'svoya'"),
        ({"pedals": [{"action": "next"}]}, "host.pedals[1].pin", "is required"),
        ({"pedals": [{"pin": -3}]}, "host.pedals[1].pin", "must not be negative"),
    ],
)
def test_bad_host_keys_are_refused_naming_the_key(host: dict[str, Any], key: str, words: str) -> None:
    message = refused(host)
    assert f"console.toml: {key}: " in message and words in message, message


def test_an_unknown_key_name_suggests_the_near_one() -> None:
    assert "did you mean KEY_SPACE?" in refused({"keys": {"device": "/x", "KEY_SPAC": "next"}})


def test_a_key_written_twice_in_the_file_is_refused_by_toml(tmp_path: Path) -> None:
    path = tmp_path / "console.toml"
    path.write_text('[host.keys]\ndevice = "/x"\nKEY_SPACE = "next"\nKEY_SPACE = "cancel"\n')
    with pytest.raises(ConfigError, match=r"console.toml: not valid TOML .*line 4"):
        read_config(path)


def test_a_pedal_pin_shared_with_a_source_is_refused() -> None:
    base = {**SVOYA, "sources": {"b": {"kind": "gpio", "pins": [5, 6], "pin_factory": "mock"}},
            "players": [{"id": "a", "name": "A", "pad": "b:0"}, {"id": "c", "name": "C", "pad": "b:1"}]}
    message = refused({"pedals": [{"pin": 4}, {"pin": 6, "action": "correct"}]}, base)
    assert "host.pedals[2].pin: pin 6 is already sources.b's" in message


def test_each_pedal_has_its_action_and_the_old_keys_still_work() -> None:
    config = host_config({"pedal_pin": 4, "pedal_action": "name",
                          "pedals": [{"pin": 17}, {"pin": 27, "action": "correct", "pin_factory": "mock"}]})
    assert [(name, p.pin, p.action) for name, p in config.host.all_pedals()] == [
        ("pedal", 4, "name"), ("pedal:17", 17, "reading_finished"), ("pedal:27", 27, "correct")]


def test_keys_and_pedals_take_the_games_own_actions() -> None:
    """The sports timer's host may start the minute from a clicker; a «Своя игра» action
    there is refused (it would reach an engine that cannot take it)."""
    sports = {"game": {"kind": "sports"}}
    config = host_config({"keys": {"device": "/x", "KEY_PAGEDOWN": "start"}, "pedals": [{"pin": 5,
                          "action": "cancel"}]}, sports)
    assert config.host.keys[0].bindings[0].action == "start"
    assert "not a host action of game.kind = 'sports'" in refused(
        {"keys": {"device": "/x", "KEY_A": "reading_finished"}}, sports)


def test_the_shipped_config_documents_the_keys_and_pedals() -> None:
    text = (Path(__file__).resolve().parent.parent / "config" / "console.toml").read_text("utf-8")
    for line in ("# [[host.keys]]", "# device = ", "# kind = ", '# KEY_SPACE = "reading_finished"',
                 "# [[host.pedals]]", "# pin = ", "# action = ", "# pin_factory = ", "# keys = ",
                 "# pedals = "):
        assert line in text, line


# ------------------------------------------------------------------ the reader


class Seen:
    def __init__(self) -> None:
        self.keys: list[tuple[int, int]] = []
        self.status: list[tuple[str, str]] = []
        self.errors: list[str] = []


@pytest.fixture
def keyboard(tmp_path: Path) -> Iterator[FakeKeyboard]:
    kb = FakeKeyboard(tmp_path / "usb-clicker-event-kbd")
    kb.plug()
    try:
        yield kb
    finally:
        kb.close()


def reader(path: Path | str, seen: Seen, codes: tuple[int, ...] = (57, 28), kind: str = STREAM) -> KeyReader:
    return KeyReader(str(path), codes, kind=kind, retry_s=0.05,
                     on_key=lambda code, at: seen.keys.append((code, at)),
                     on_status=lambda state, detail: seen.status.append((state, detail)),
                     on_error=seen.errors.append)


async def connected(r: KeyReader, kb: FakeKeyboard) -> None:
    await until(lambda: r.connected)
    kb.release_slave()


async def test_a_key_down_acts_at_the_kernels_time_and_repeats_and_ups_do_not(keyboard: FakeKeyboard) -> None:
    seen = Seen()
    r = reader(keyboard.link, seen)
    r.start(asyncio.get_running_loop())
    try:
        await connected(r, keyboard)
        pressed = time.monotonic_ns() - 250 * MS  # stamped by the kernel, delivered late
        pressed = keyboard.key(57, KEY_DOWN, pressed)
        for i in range(5):  # held: the kernel repeats it
            keyboard.key(57, KEY_REPEAT, pressed + (250 + 33 * i) * MS)
        keyboard.key(57, KEY_UP, pressed + 400 * MS)
        keyboard.tap(30)  # KEY_A: not mapped
        enter = keyboard.tap(28)
        await until(lambda: len(seen.keys) == 2)
        await asyncio.sleep(0.05)
        assert seen.keys == [(57, pressed), (28, enter)]  # the records' times, not arrival
        assert seen.status == [("connected", f"{keyboard.link} (a stream of input_event records)")]
        assert seen.errors == []
    finally:
        r.close()


async def test_a_timestamp_from_the_future_is_taken_as_arrival(keyboard: FakeKeyboard) -> None:
    seen = Seen()
    r = reader(keyboard.link, seen)
    r.start(asyncio.get_running_loop())
    try:
        await connected(r, keyboard)
        keyboard.key(57, KEY_DOWN, time.monotonic_ns() + 10**12)
        await until(lambda: seen.keys)
        assert seen.keys[0][1] <= time.monotonic_ns()
    finally:
        r.close()


async def test_records_split_across_writes_are_read_whole(keyboard: FakeKeyboard) -> None:
    seen = Seen()
    r = reader(keyboard.link, seen)
    r.start(asyncio.get_running_loop())
    try:
        await connected(r, keyboard)
        at = (time.monotonic_ns() - 5 * MS) // 1000 * 1000
        record = keyboard.event(EV_KEY, 28, KEY_DOWN, at)
        keyboard.write(record[:7])
        await asyncio.sleep(0.05)
        assert seen.keys == []
        keyboard.write(record[7:])
        await until(lambda: seen.keys)
        assert seen.keys == [(28, at)]
    finally:
        r.close()


async def test_unplug_is_reported_and_replug_reads_again(keyboard: FakeKeyboard) -> None:
    seen = Seen()
    r = reader(keyboard.link, seen)
    r.start(asyncio.get_running_loop())
    try:
        await connected(r, keyboard)
        keyboard.tap(57)
        await until(lambda: len(seen.keys) == 1)
        keyboard.unplug()
        await until(lambda: len(seen.status) == 3)
        assert seen.status[1] == ("disconnected", f"key device {keyboard.link} lost: end of file")
        await asyncio.sleep(0.2)  # retried a few times: still missing, said once
        assert [s for s, _ in seen.status] == ["connected", "disconnected", "disconnected"]
        assert "does not exist" in seen.status[-1][1]
        keyboard.plug()
        await connected(r, keyboard)
        assert seen.status[-1][0] == "connected"
        at = keyboard.tap(28)
        await until(lambda: len(seen.keys) == 2)
        assert seen.keys[1] == (28, at)
        assert len(seen.errors) == 2  # the loss and the missing device, each once
    finally:
        r.close()


async def test_a_missing_device_is_a_clear_error_and_is_waited_for(tmp_path: Path) -> None:
    link = tmp_path / "usb-pedal-event-kbd"
    seen = Seen()
    r = reader(link, seen)
    r.start(asyncio.get_running_loop())
    try:
        assert not r.connected
        assert seen.errors == [f"cannot open key device {link}: it does not exist (is it plugged in?); "
                               "retrying every 0.05 s"]
        assert seen.status == [("disconnected", f"cannot open key device {link}: it does not exist "
                                                "(is it plugged in?)")]
        kb = FakeKeyboard(link)
        kb.plug()
        try:
            await connected(r, kb)
            at = kb.tap(57)
            await until(lambda: seen.keys)
            assert seen.keys == [(57, at)]
        finally:
            kb.close()
    finally:
        r.close()


async def test_an_evdev_device_that_is_not_there_names_what_is(tmp_path: Path) -> None:
    """The real opener: a by-id path that does not exist, and a name no device has."""
    seen = Seen()
    missing = reader("/dev/input/by-id/usb-no-such-clicker-event-kbd", seen, kind="evdev")
    missing.start(asyncio.get_running_loop())
    missing.close()
    assert seen.status == [("disconnected", "cannot open key device /dev/input/by-id/usb-no-such-"
                                            "clicker-event-kbd: it does not exist (is it plugged in?)")]
    seen = Seen()
    named = reader("Logitech R400", seen, kind="evdev")
    named.start(asyncio.get_running_loop())
    named.close()
    assert seen.status[0][0] == "disconnected"
    assert "no input device is named 'Logitech R400' (found: " in seen.status[0][1]


# ------------------------------------------------------------------ keys playing the game


def console_with_keys(link: Path, journal: io.StringIO | None = None) -> Console:
    config = host_config({"keys": {"device": str(link), "kind": "stream", "KEY_PAGEDOWN": "next",
                                   "KEY_B": "reading_finished", "KEY_ESC": "cancel"}})
    console = Console(config, journal=journal)
    add_host_inputs(console.sources, console.config.host)
    return console


async def test_keys_play_the_game_at_their_press_times(keyboard: FakeKeyboard) -> None:
    journal = io.StringIO()
    console = console_with_keys(keyboard.link, journal)
    events: list[dict[str, Any]] = []
    console.wire_watchers.append(events.append)
    (r,) = [i for i in console.sources.local_inputs if isinstance(i, KeyReader)]
    console.sources.start_local_inputs()
    try:
        await connected(r, keyboard)
        assert [e["state"] for e in events if e["type"] == "source_status"] == ["connected"]
        assert [e["source"] for e in events if e["type"] == "source_status"] == ["keys:usb-clicker-event-kbd"]
        t0 = (time.monotonic_ns() - 400 * MS) // 1000 * 1000
        keyboard.tap(ecodes.KEY_PAGEDOWN, t0)
        keyboard.key(ecodes.KEY_PAGEDOWN, KEY_REPEAT, t0 + 300 * MS)  # held: no second question
        keyboard.tap(ecodes.KEY_B, t0 + 200 * MS)
        await until(lambda: any(e["type"] == "reading_finished" for e in events))
        assert svoya_of(console).phase == "open"
        # The signal window runs from the key's press, not from its arrival.
        finished = next(e for e in events if e["type"] == "reading_finished")
        assert finished["window_ends_ns"] == t0 + 200 * MS + 7 * 10**9
        lines = [json.loads(line) for line in journal.getvalue().splitlines()[1:]]
        assert [(line["host"], line["at_ms"]) for line in lines] == [
            ("next", t0 / MS), ("reading_finished", (t0 + 200 * MS) / MS)]
        assert all("arrive_ms" in line for line in lines)
        assert len([e for e in events if e["type"] == "question_started"]) == 1
    finally:
        console.sources.close_local_inputs()


async def test_a_missing_key_device_loses_nothing_else(tmp_path: Path) -> None:
    """The tablet's commands and the game go on while the clicker is away; it joins later."""
    link = tmp_path / "usb-clicker-event-kbd"
    console = console_with_keys(link)
    events: list[dict[str, Any]] = []
    console.wire_watchers.append(events.append)
    console.sources.start_local_inputs()
    try:
        errors = [e["message"] for e in events if e["type"] == "error"]
        assert errors == [f"cannot open key device {link}: it does not exist (is it plugged in?); "
                          "retrying every 1 s"]
        console.host(HostAction.NEXT)
        assert svoya_of(console).phase == "reading"
        kb = FakeKeyboard(link)
        kb.plug()
        try:
            await until(lambda: console.sources.status.get("keys:usb-clicker-event-kbd") == "connected",
                        within=5)
            kb.release_slave()
            kb.tap(ecodes.KEY_B)
            await until(lambda: svoya_of(console).phase == "open")
        finally:
            kb.close()
    finally:
        console.sources.close_local_inputs()


async def test_add_host_keys_refuses_an_action_the_game_does_not_take(keyboard: FakeKeyboard) -> None:
    config = host_config({"keys": {"device": str(keyboard.link), "kind": "stream", "KEY_A": "next"}})
    sports = Console(config_from_dict({"game": {"kind": "sports"}}, "t"))
    with pytest.raises(ValueError, match="next"):
        add_host_keys(sports.sources, config.host.keys[0])


# ------------------------------------------------------------------ a real kernel device


@pytest.mark.skipif(not os.access("/dev/uinput", os.W_OK),
                    reason="no writable /dev/uinput here (no uinput module, or a container): the "
                           "pty tests above drive the same decode and dispatch with real records")
async def test_a_real_uinput_keyboard_is_grabbed_and_read_at_its_kernel_time() -> None:
    from evdev import InputDevice, UInput

    with UInput({ecodes.EV_KEY: [ecodes.KEY_SPACE, ecodes.KEY_ENTER]}, name="chgk-test-clicker") as ui:
        await asyncio.sleep(0.3)  # udev makes the node
        seen = Seen()
        r = reader("chgk-test-clicker", seen, codes=(57,), kind="evdev")
        r.start(asyncio.get_running_loop())
        try:
            await until(lambda: r.connected)
            other = InputDevice(ui.device.path)
            try:
                with pytest.raises(OSError):  # grabbed: nobody else gets its keys
                    other.grab()
            finally:
                other.close()
            before = time.monotonic_ns()
            ui.write(ecodes.EV_KEY, ecodes.KEY_SPACE, 1)
            ui.syn()
            ui.write(ecodes.EV_KEY, ecodes.KEY_SPACE, 0)
            ui.syn()
            await until(lambda: seen.keys)
            code, at = seen.keys[0]
            assert code == 57 and before <= at <= time.monotonic_ns()  # CLOCK_MONOTONIC stamps
        finally:
            r.close()
