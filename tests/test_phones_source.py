"""Phones as buttons through the console (issue 35): the phones' server on a loopback port, a
real WebSocket client as each phone's page (its clock a shifted monotonic clock, as a
browser's `performance.now()` is), the «Своя игра» referee deciding on the press's own time."""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from console.config import ConfigError
from console.engine.events import Event
from console.engine.model import HostAction
from console.engine.svoya.events import SignalAccepted
from console.games import config_from_dict
from console.notices import ConsoleError, SourceStatus
from console.schemas import validate
from console.shell.runtime import Console
from console.sources.phones import PhonesSettings
from tests.conftest import free_port, until

MS = 1_000_000


def phones_config(port: int, **source: object) -> dict[str, object]:
    return {
        "console": {"node": "t", "journal": ""},
        "game": {"signal_window_s": 5},
        "players": [{"id": "a", "name": "Анна", "pad": "phones:0"},
                    {"id": "b", "name": "Борис", "pad": "phones:1"}],
        "sources": {"phones": {"kind": "phones", "port": port, "bind": "127.0.0.1", "code": "4821",
                               **source}},
        "sound": {"enabled": False},
    }


@dataclass
class Page:
    """A phone's page: its `performance.now()` is the machine's monotonic clock minus its own
    origin, so a test knows each press's true time on the console's clock."""

    ws: ClientConnection
    origin_ns: int
    said: list[dict[str, Any]] = field(default_factory=list)
    beating: bool = True
    delay_s: float = 0.0  # its Wi-Fi hop to the console now (what it sends keeps its order)
    outbox: asyncio.Queue[tuple[float, str]] = field(default_factory=asyncio.Queue)

    def now_ms(self) -> float:
        return (time.monotonic_ns() - self.origin_ns) / MS

    async def send(self, message: dict[str, object]) -> None:
        await self.outbox.put((time.monotonic() + self.delay_s, json.dumps(message)))

    async def deliver(self) -> None:
        while True:
            due, text = await self.outbox.get()
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            await self.ws.send(text)

    async def press(self) -> int:
        """A pointerdown now (its timeStamp), sent at once; returns its time on the console's clock."""
        at_ns = time.monotonic_ns()
        await self.send({"type": "press", "at": (at_ns - self.origin_ns) / MS})
        return at_ns

    async def run(self) -> None:
        """Answer syncs at once and beat every 80 ms, as phone.js does."""
        async def beats() -> None:
            while True:
                if self.beating:
                    await self.send({"type": "hb", "at": self.now_ms() - 50})
                await asyncio.sleep(0.08)
        beat, deliver = asyncio.create_task(beats()), asyncio.create_task(self.deliver())
        try:
            async for raw in self.ws:
                arrived = self.now_ms()
                message = json.loads(raw)
                self.said.append(message)
                if message["type"] == "sync" and self.beating:
                    await self.send({"type": "sync", "id": message["id"], "rx": arrived, "tx": self.now_ms()})
        except ConnectionClosed:
            pass
        finally:
            beat.cancel()
            deliver.cancel()

    def lamp(self) -> str | None:
        return next((m["mode"] for m in reversed(self.said) if m["type"] == "lamp"), None)


def errors(events: list[Event]) -> list[str]:
    """What the console said went wrong (its error events)."""
    return [e.message for e in events if isinstance(e, ConsoleError)]


def said(events: list[Event], text: str) -> bool:
    """Whether an error the console said has `text` in it."""
    return any(text in message for message in errors(events))


def shown_phones(console: Console) -> list[object]:
    """The phones the host's screen is shown (the status's details of the phones' source)."""
    rows = console.sources.details.get("phones", {}).get("phones", [])
    return rows if isinstance(rows, list) else []


@asynccontextmanager
async def phone_console(**source: object) -> AsyncIterator[tuple[Console, list[Event], int]]:
    port = free_port()
    config = config_from_dict(phones_config(port, **source), "t")
    console = Console(config)
    config.sources["phones"].attach(console.sources, "phones")
    events: list[Event] = []
    console.watchers.append(events.append)
    console.sources.start_local_inputs()
    try:
        await until(lambda: any(isinstance(e, SourceStatus) for e in events))
        yield console, events, port
    finally:
        console.sources.close_local_inputs()


@asynccontextmanager
async def page(port: int, origin_ns: int, **hello: object) -> AsyncIterator[Page]:
    async with connect(f"ws://127.0.0.1:{port}/ws") as ws:
        phone = Page(ws, origin_ns)
        await phone.send({"type": "hello", "code": "4821", **hello})
        task = asyncio.create_task(phone.run())
        try:
            await until(lambda: any(m["type"] == "joined" for m in phone.said))
            await until(lambda: sum(m["type"] == "sync" for m in phone.said) >= 3)  # its clock is known
            yield phone
        finally:
            task.cancel()


async def test_the_first_press_by_its_own_time_wins_though_it_arrives_last() -> None:
    async with phone_console() as (console, events, port):
        start = time.monotonic_ns()
        async with page(port, start - 5_000 * MS) as anna, page(port, start - 9_000 * MS) as boris:
            console.host(HostAction.NEXT)
            console.host(HostAction.READING_FINISHED)
            await asyncio.sleep(0.2)  # both beating: the window is open and settled so far
            # Anna presses 40 ms before Boris, but her Wi-Fi hop is 100 ms just then: her press
            # reaches the console 60 ms after his. The console waits for her heartbeat.
            anna.delay_s = 0.1
            anna_at = await anna.press()
            await asyncio.sleep(0.04)
            boris_at = await boris.press()
            await until(lambda: [e for e in events if isinstance(e, SignalAccepted)])
            (accepted,) = [e for e in events if isinstance(e, SignalAccepted)]
            assert accepted.player == "a" and not accepted.tie
            assert boris_at - anna_at >= 40 * MS
            # Placed at her own stamp (loopback: the clock's offset is known to well under a ms).
            assert abs(accepted.press_at_ns - anna_at) < 2 * MS
            await until(lambda: anna.lamp() == "on")
            assert boris.lamp() == "off"


async def test_the_host_is_shown_the_code_the_link_and_each_phones_clock_as_the_status_schema_says() -> None:
    async with phone_console() as (console, _, port):
        start = time.monotonic_ns()
        async with page(port, start), page(port, start):
            await until(lambda: len(shown_phones(console)) == 2, within=5.0)
            details = dict(console.sources.details["phones"])
            validate("status", {"state": "online", "sources": {"phones": "connected"}, "node": "t",
                                "game": "svoya", "seed": 1, "devices": {"phones": details}})
            assert details["code"] == "4821" and str(details["url"]).endswith(f":{port}/?c=4821")
            rows = details["phones"]
            assert isinstance(rows, list) and [row["pad"] for row in rows] == ["phones:0", "phones:1"]
            assert all(row["online"] and row["flag"] == "" for row in rows), rows


async def test_a_phone_that_falls_silent_is_a_lost_source_and_back_when_it_speaks() -> None:
    async with phone_console() as (_, events, port):
        start = time.monotonic_ns()
        async with page(port, start) as anna, page(port, start):
            await asyncio.sleep(0.2)
            anna.beating = False  # the phone went to sleep: no heartbeats, no sync answers
            await until(lambda: [e for e in events
                                 if isinstance(e, SourceStatus) and e.state == "disconnected"], within=3.0)
            lost = [e for e in events if isinstance(e, SourceStatus) and e.state == "disconnected"][-1]
            assert "места 1 молчит" in lost.detail
            anna.beating = True
            await until(lambda: events[-1:] and any(
                isinstance(e, SourceStatus) and e.state == "connected" for e in events[events.index(lost):]))


BAD_FREES = (
    (b'{"action": "free_seat", "source": "phones", "seat": 9}', "seat: a seat from 1 to 8"),
    (b'{"action": "free_seat", "source": "mcu", "seat": 2}', "takes no commands"),
    (b'{"action": "free_seat", "source": "phones", "seat": 2, "x": 1}', "unknown key"),
)


async def test_a_stall_of_the_console_is_never_taken_for_a_silent_phone() -> None:
    """The console's own loop held up 1.5 s (a stall): the phones' heartbeats waited on their
    sockets meanwhile; they are read before any phone is judged silent."""
    async with phone_console() as (_, events, port):
        start = time.monotonic_ns()
        async with page(port, start), page(port, start):
            await asyncio.sleep(0.3)
            time.sleep(1.5)  # noqa: ASYNC251 - the stall itself: the loop held up
            await asyncio.sleep(0.5)
            assert not [e for e in events if isinstance(e, SourceStatus) and e.state == "disconnected"]


async def test_the_host_frees_the_seat_of_a_phone_gone_for_good() -> None:
    """A flat battery: the phone's source is lost, and every window would wait for it; the host
    frees its seat (a bad free_seat is refused, naming what is wrong) and the source is back."""
    async with phone_console() as (console, events, port):
        def states() -> list[str]:
            return [e.state for e in events if isinstance(e, SourceStatus)]

        start = time.monotonic_ns()
        async with page(port, start), page(port, start) as boris:
            await asyncio.sleep(0.2)
            boris.beating = False
            await until(lambda: states()[-1] == "disconnected", within=3.0)
            for bad, why in BAD_FREES:
                console.commands.on_command(bad)
                await until(functools.partial(said, events, why))
            assert states()[-1] == "disconnected"  # nothing changed
            console.commands.on_command(b'{"action": "free_seat", "source": "phones", "seat": 2}')
            await until(lambda: states()[-1] == "connected")
            await until(lambda: [m["reason"] for m in boris.said if m["type"] == "refused"]
                        == ["ведущий освободил это место"])
            await until(lambda: len(shown_phones(console)) == 1)


async def test_bad_messages_are_said_and_change_nothing() -> None:
    async with phone_console() as (_, events, port), connect(f"ws://127.0.0.1:{port}/ws") as ws:
        await ws.send("not json")
        await ws.send("[1, 2]")
        await ws.send(json.dumps({"type": "press", "at": 1.0}))  # before any hello
        answer = json.loads(await ws.recv())
        assert answer == {"type": "refused", "reason": "сначала введите код"}
        await until(lambda: len(errors(events)) >= 2)
        assert "not JSON" in errors(events)[0] and "not a JSON object" in errors(events)[1]
        assert not [e for e in events if isinstance(e, SignalAccepted)]


async def test_a_flooding_page_is_let_go() -> None:
    async with phone_console() as (_, _events, port), connect(f"ws://127.0.0.1:{port}/ws") as ws:
        with pytest.raises(ConnectionClosed):
            for _ in range(1000):
                await ws.send(json.dumps({"type": "hb", "at": 1.0}))
                await asyncio.sleep(0)
            while True:  # what it was answered, then the end
                await ws.recv()
        assert ws.close_code == 1008


async def test_the_page_is_served_on_the_phones_port() -> None:
    async with phone_console() as (_, _events, port):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /?c=4821 HTTP/1.1\r\nHost: x\r\n\r\n")
        data = await reader.read()
        writer.close()
        assert data.startswith(b"HTTP/1.1 200") and "Жми!".encode() in data


def test_the_settings_are_checked() -> None:
    with pytest.raises(ConfigError, match=r"sources\.phones\.code: 4 to 8 digits"):
        config_from_dict(phones_config(8090, code="12ab"), "t")
    with pytest.raises(ConfigError, match=r"sources\.phones\.seats: from 1 to 32"):
        config_from_dict(phones_config(8090, seats=40), "t")
    settings = config_from_dict(phones_config(8090), "t").sources["phones"]
    assert isinstance(settings, PhonesSettings) and settings.pad_count() == 8


def test_one_input_kind_refuses_a_fight_of_phones_and_wired_buttons() -> None:
    """game.one_input_kind: a wired button is 10-30 ms ahead of any phone (docs/phones.md), so a
    club may ask that everyone plays the same kind."""
    same = phones_config(8090)
    same["game"] = {"signal_window_s": 5, "one_input_kind": True}
    assert config_from_dict(same, "t").game.one_input_kind
    mixed = phones_config(8090)
    mixed["game"] = {"signal_window_s": 5, "one_input_kind": True}
    mixed["sources"] = {**mixed["sources"], "mcu": {"kind": "simulated_mcu"}}  # type: ignore[dict-item]
    mixed["players"] = [{"id": "a", "name": "Анна", "pad": "phones:0"},
                        {"id": "b", "name": "Борис", "pad": "mcu:0"}]
    with pytest.raises(ConfigError, match=r"game\.one_input_kind: the buttons are of 2 kinds "
                                          r"\(phones: phones:0; simulated_mcu: mcu:0\)"):
        config_from_dict(mixed, "t")
    mixed["game"] = {"signal_window_s": 5}
    assert config_from_dict(mixed, "t").players[1].pad == "mcu:0"  # allowed unless asked
    brainring = {"console": {"node": "t", "journal": ""},
                 "game": {"kind": "brainring", "one_input_kind": True},
                 "sources": {"phones": {"kind": "phones", "code": "4821"}, "mcu": {"kind": "simulated_mcu"}},
                 "brainring": {"teams": [{"id": "t1", "name": "Совы", "pads": ["phones:0", "mcu:0"]},
                                         {"id": "t2", "name": "Ежи", "pads": ["phones:1"]}]},
                 "sound": {"enabled": False}}
    with pytest.raises(ConfigError, match="one_input_kind"):
        config_from_dict(brainring, "t")


async def test_a_phone_known_too_roughly_makes_the_decision_one_the_host_is_asked_about() -> None:
    """A phone whose press is known only to ±40 ms and more (here its touch allowance; a browser
    rounding to 100 ms does the same): the referee still gives the turn by its time, but says
    the decision is not sure (`inputs_lost`), so the host's screen asks whether it stands,
    and the host is told which phone and how roughly."""
    async with phone_console(touch_allowance_ms=40.0) as (console, events, port):
        start = time.monotonic_ns()
        async with page(port, start - 5_000 * MS) as anna, page(port, start - 9_000 * MS):
            console.host(HostAction.NEXT)
            console.host(HostAction.READING_FINISHED)
            await asyncio.sleep(0.2)
            await anna.press()
            await until(lambda: [e for e in events if isinstance(e, SignalAccepted)])
            (accepted,) = [e for e in events if isinstance(e, SignalAccepted)]
            assert accepted.player == "a" and accepted.inputs_lost == ("phones",)
            assert said(events, "телефон места 1: время нажатия известно лишь с точностью")
