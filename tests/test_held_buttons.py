"""A button held down is reported once and its release once; the others play on (issues 8, 10).

The pure view (console/shell/held_buttons.py) with time stepped by hand; the MCU session
handing on a HEARTBEAT's held mask; the Console's timer and the HEARTBEAT's correction with a
hand-stepped clock; a GPIO pad pressed at start; and end to end through the Console with the
simulated MCU on a pty (a PRESS with no RELEASE; its HEARTBEATs carry the held mask).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from console.engine.model import HostAction
from console.games import config_from_dict
from console.games.svoya.texts import describe
from console.notices import ButtonHeld
from console.shell.held_buttons import HeldButtons
from console.shell.runtime import Console
from console.sources.gpio import add_buttons
from console.sources.mcu import McuFeed
from drivers.mcu_inputs import HeldPads, PadEdge
from drivers.mcu_serial import McuLink, Watermark
from drivers.sim_mcu import SimulatedMcu
from tests.conftest import linked, until
from tests.support.clock import Clock
from tests.support.gpio import HeldPin
from tests.support.mcu_harness import Harness

MS = 1_000_000
S = 1_000 * MS


def test_a_pad_held_past_the_hold_time_is_reported_once_and_its_release_once() -> None:
    held = HeldButtons(5 * S, {"mcu:2": "p3"})
    held.down("mcu", "mcu:2", 10 * S)
    assert held.next_deadline() == 15 * S
    assert held.due(15 * S - 1) == []
    (notice,) = held.due(15 * S)
    assert (notice.pad, notice.player, notice.state, notice.held_ms) == ("mcu:2", "p3", "held", 5000)
    assert held.due(40 * S) == [] and held.next_deadline() is None  # said once
    released = held.up("mcu:2", 42 * S, 42 * S + 3 * MS)
    assert released is not None
    assert (released.state, released.held_ms, released.t_ns) == ("released", 32_000, 42 * S + 3 * MS)
    assert held.up("mcu:2", 43 * S, 43 * S) is None  # and the release once


def test_a_chattering_or_short_press_is_never_reported() -> None:
    held = HeldButtons(5 * S, {})
    t = 0
    for _ in range(20_000):  # 1 kHz chatter for 20 s: no press lasts the hold time
        held.down("mcu", "mcu:0", t)
        assert held.up("mcu:0", t + MS // 2, t + MS // 2) is None
        t += MS
    assert held.due(t + 10 * S) == []


def test_a_heartbeat_mask_starts_and_ends_a_hold() -> None:
    """A pad down without its PRESS seen (down when the box connected, a frame lost) counts
    from the HEARTBEAT that shows it; one the HEARTBEAT shows up is released then."""
    held = HeldButtons(1 * S, {})
    assert held.seen_down("mcu", {"mcu:1"}, 5 * S, 5 * S) == []
    assert held.seen_down("mcu", {"mcu:1"}, 5 * S + 100 * MS, 5 * S + 100 * MS) == []  # keeps its start
    (notice,) = held.due(6 * S)
    assert notice.held_ms == 1000
    (released,) = held.seen_down("mcu", set(), 7 * S, 7 * S)
    assert (released.state, released.held_ms) == ("released", 2000)
    # Another source's HEARTBEAT says nothing about this one's pads.
    held.down("gpio", "gpio:0", 8 * S)
    assert held.seen_down("mcu", set(), 8 * S, 8 * S) == []
    assert [n.pad for n in held.due(9 * S)] == ["gpio:0"]


def test_a_source_lost_reports_nothing_new_but_keeps_a_reported_hold_for_its_release() -> None:
    held = HeldButtons(1 * S, {})
    held.down("mcu", "mcu:0", 0)
    held.down("mcu", "mcu:1", 0)
    assert len(held.due(1 * S)) == 2
    held.down("mcu", "mcu:2", 1 * S)
    held.forget("mcu")
    assert held.due(10 * S) == []  # mcu:2's state is unknown now
    released = held.seen_down("mcu", {"mcu:1"}, 11 * S, 11 * S)  # back: mcu:0 is up
    assert [(n.pad, n.state) for n in released] == [("mcu:0", "released")]


def test_the_session_hands_on_a_heartbeats_held_mask() -> None:
    """PROTOCOL.md 4.4: the HEARTBEAT's `held`, bit i for pad i."""
    h = Harness()
    h.handshake()
    h.recv(h.device.heartbeat(h.now, held=0b0101), 1 * MS)
    (mask,) = h.of(HeldPads)
    assert isinstance(mask, HeldPads) and mask.pads == (0, 2) and mask.at_ns <= h.now


def config(**console: object) -> Any:
    return config_from_dict({
        "console": {"node": "t1", "journal": "", **console},
        "players": [{"id": f"p{i + 1}", "name": f"Игрок {i + 1}", "pad": f"mcu:{i}"} for i in range(3)],
        "sources": {"mcu": {"kind": "serial_mcu", "port": "/dev/null"}},
        "sound": {"enabled": False},
    }, "test")


def test_the_console_reports_a_held_pad_on_its_timer_and_its_release_by_heartbeat() -> None:
    clock = Clock()
    console = Console(config(held_button_s=2.0), clock=clock)
    seen: list[ButtonHeld] = []
    console.watchers.append(lambda e: seen.append(e) if isinstance(e, ButtonHeld) else None)
    console.sources.button_edge("mcu", "mcu:1", True, clock.now)
    clock.now += 1 * S
    console.sources.on_held_timer()  # fired early: nothing yet
    assert seen == []
    clock.now += 1 * S
    console.sources.on_held_timer()
    assert [(e.pad, e.player, e.state, e.held_ms) for e in seen] == [("mcu:1", "p2", "held", 2000)]
    assert describe(seen[0], {"p2": "Игрок 2"}).startswith("Кнопка mcu:1 (игрока Игрок 2) зажата уже 2,0 с")
    clock.now += 5 * S
    McuFeed(console.sources, "mcu").held(HeldPads((1,), clock.now))  # still down
    console.sources.on_held_timer()
    assert len(seen) == 1
    McuFeed(console.sources, "mcu").held(HeldPads((), clock.now + S))  # its RELEASE was lost: up
    assert [(e.state, e.held_ms) for e in seen[1:]] == [("released", 8000)]
    assert describe(seen[1], {}).startswith("Кнопка mcu:1 (игрока p2) отпущена")


def test_the_held_view_takes_a_scans_edges_even_when_the_referee_fails_on_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The view stands beside the referee: its edges are taken after the decision, and a
    referee that raises on the scan (logged by the link) leaves none of them waiting."""
    clock = Clock()
    console = Console(config(held_button_s=2.0), clock=clock)
    seen: list[ButtonHeld] = []
    console.watchers.append(lambda e: seen.append(e) if isinstance(e, ButtonHeld) else None)

    def broken(*_args: object) -> None:
        raise RuntimeError("a referee bug")

    monkeypatch.setattr(console.referee, "handle_all", broken)
    feed = McuFeed(console.sources, "mcu")
    feed.edge(PadEdge((1,), True, clock.now, clock.now // 1000, 0))
    with pytest.raises(RuntimeError):
        feed.watermark(Watermark(clock.now))
    clock.now += 2 * S
    console.sources.on_held_timer()
    assert [(e.pad, e.state) for e in seen] == [("mcu:1", "held")]


def test_held_button_s_0_turns_it_off() -> None:
    console = Console(config(held_button_s=0))
    assert console.sources.held is None
    console.sources.button_edge("mcu", "mcu:0", True, 0)  # no view, no error


@contextlib.asynccontextmanager
async def svoya_console(
    sim: SimulatedMcu, hold_s: float,
) -> AsyncIterator[tuple[Console, McuLink, list[dict[str, Any]]]]:
    console = Console(config(held_button_s=hold_s))
    async with linked(console, sim) as (link, events):
        yield console, link, events


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


async def test_a_pad_held_on_the_box_is_reported_once_and_the_others_play_on() -> None:
    """End to end: pad 2 pressed and never released on the simulated MCU (its HEARTBEATs,
    every 100 ms, carry it in the held mask) is said once, while a question is played with
    pad 0; its release is said once; its own press went to the referee once."""
    with SimulatedMcu(pads=4) as sim:
        async with svoya_console(sim, 0.3) as (console, _link, events):
            sim.press(2)  # before any question: a press the referee ignores, once
            await until(lambda: len(of(events, "button_held")) == 1)
            (held,) = of(events, "button_held")
            assert (held["pad"], held["player"], held["state"]) == ("mcu:2", "p3", "held")
            assert held["held_ms"] >= 300
            console.host(HostAction.NEXT)
            await until(lambda: bool(of(events, "question_started")))
            # A player presses after the announcement, not within the clock fit's error of it
            # (a fit of few pings, just after connect, may be a few ms off on a loaded machine).
            await asyncio.sleep(0.05)
            sim.press(0)
            sim.release(0)  # a real press: down a few ms, never reported
            await until(lambda: bool(of(events, "signal_accepted")))
            (accepted,) = of(events, "signal_accepted")
            assert accepted["player"] == "p1"
            await asyncio.sleep(0.5)  # several HEARTBEATs still show pad 2 down
            assert len(of(events, "button_held")) == 1
            sim.release(2)
            await until(lambda: len(of(events, "button_held")) == 2)
            released = of(events, "button_held")[1]
            assert (released["pad"], released["state"]) == ("mcu:2", "released")
            assert released["held_ms"] >= 800
            await asyncio.sleep(0.3)
            assert len(of(events, "button_held")) == 2
            assert [e["player"] for e in of(events, "press_ignored")] == ["p3"]


@contextlib.contextmanager
def gpio_console(factory: MockFactory) -> Iterator[tuple[Console, list[dict[str, Any]]]]:
    """Two players' GPIO buttons (pins 17 and 27, pulled up: pressed is low) held 0.2 s."""
    cfg = config_from_dict({
        "console": {"node": "t1", "journal": "", "held_button_s": 0.2},
        "players": [{"id": f"p{i}", "name": f"Игрок {i}", "pad": f"btn:{i}"} for i in range(2)],
        "sources": {"btn": {"kind": "gpio", "pins": [17, 27], "pin_factory": "mock", "max_delay_ms": 2}},
        "sound": {"enabled": False},
    }, "test")
    console = Console(cfg)
    events: list[dict[str, Any]] = []
    console.wire_watchers.append(events.append)
    add_buttons(console.sources, "btn", [17, 27], pin_factory=factory)
    console.sources.start_local_inputs()
    try:
        yield console, events
    finally:
        console.sources.close_local_inputs()


async def test_a_gpio_pin_still_active_is_reported_once_and_the_other_pad_plays() -> None:
    factory = MockFactory()
    try:
        with gpio_console(factory) as (console, events):
            factory.pin(17).drive_low()  # p0 leans on the button
            await until(lambda: len(of(events, "button_held")) == 1)
            console.host(HostAction.NEXT)
            await asyncio.sleep(0.01)
            factory.pin(27).drive_low()  # p1 presses
            await until(lambda: bool(of(events, "signal_accepted")))
            assert of(events, "signal_accepted")[0]["player"] == "p1"
            factory.pin(27).drive_high()
            factory.pin(17).drive_high()
            await until(lambda: len(of(events, "button_held")) == 2)
            await asyncio.sleep(0.3)
            assert [(e["pad"], e["player"], e["state"]) for e in of(events, "button_held")] == [
                ("btn:0", "p0", "held"), ("btn:0", "p0", "released")]
    finally:
        factory.reset()


async def test_a_gpio_pad_pressed_at_start_counts_as_held_from_then() -> None:
    factory = MockFactory()
    factory.pin_class = HeldPin  # held low by its wiring: the pull-up does not lift it
    factory.pin(17).held = False
    stuck = factory.pin(27)  # stuck before the console starts
    try:
        with gpio_console(factory) as (_console, events):
            await until(lambda: len(of(events, "button_held")) == 1)
            (held,) = of(events, "button_held")
            assert (held["pad"], held["player"], held["state"]) == ("btn:1", "p1", "held")
            stuck.held = False
            stuck.drive_high()
            await until(lambda: len(of(events, "button_held")) == 2)
            assert of(events, "button_held")[1]["state"] == "released"
    finally:
        factory.reset()
