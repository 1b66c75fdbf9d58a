"""Floods cost nothing (issue 10): a chattering pad's repeats never reach the referee or the
journal, and the decision is the one its first press earns.

The «Своя игра» console is driven through its MCU entry points (`mcu_edge`/`mcu_watermark`,
what the serial link calls) with hand-made times; nothing sleeps.
"""

from __future__ import annotations

import io
import json

from console.engine.model import HostAction
from console.games import config_from_dict
from console.shell.runtime import Console
from console.shell.sources_hub import COALESCE_NS
from console.sources.mcu import McuFeed
from drivers.mcu_session import PadEdge, Watermark

MS = 1_000_000


def console() -> tuple[Console, list[dict[str, object]], io.StringIO]:
    config = config_from_dict({
        "console": {"node": "t1", "journal": ""},
        "players": [{"id": f"p{i + 1}", "name": f"Игрок {i + 1}", "pad": f"mcu:{i}"} for i in range(2)],
        "sources": {"mcu": {"kind": "simulated_mcu", "pads": 2}},
        "sound": {"enabled": False},
    }, "test")
    journal = io.StringIO()
    c = Console(config, clock=lambda: 0, journal=journal)
    events: list[dict[str, object]] = []
    c.wire_watchers.append(events.append)
    return c, events, journal


def scan(c: Console, pad: int, at: int, *, pressed: bool = True) -> None:
    feed = McuFeed(c.sources, "mcu")
    feed.edge(PadEdge((pad,), pressed, at, at // 1000, 0))
    feed.watermark(Watermark(at))


def test_a_chattering_pad_reaches_the_referee_once_per_window() -> None:
    """004 App.5: the first to signal answers.  Pad 0 chatters at 1 kHz from 10 ms after the
    announcement; pad 1 presses once, 5 ms after pad 0's first press: pad 0 still wins."""
    c, events, journal = console()
    start = 1000 * MS
    c.host(HostAction.NEXT, at=start)
    lines = journal.getvalue().count("\n")
    first = start + 10 * MS
    for i in range(1000):  # a second of chatter: press, release every millisecond
        at = first + i * MS
        scan(c, 0, at)
        scan(c, 0, at + MS // 2, pressed=False)
        if i == 5:
            scan(c, 1, at)
    accepted = [e for e in events if e["type"] == "signal_accepted"]
    assert [e["player"] for e in accepted] == ["p1"] and accepted[0]["press_at_ns"] == first
    pressed = [json.loads(line) for line in journal.getvalue().splitlines()[lines:]]
    presses = [p for p in pressed if "press" in p]
    # One press of pad 0 per 20 ms window at most, plus pad 1's: not a thousand.
    assert len(presses) <= 1000 * MS // COALESCE_NS + 2
    assert c.sources.coalescer is not None and c.sources.coalescer.dropped >= 900
    ignored = [e for e in events if e["type"] == "press_ignored"]
    assert len(ignored) <= 1000 * MS // COALESCE_NS + 2  # the repeats cost no events either


def test_a_host_action_lets_the_next_press_through() -> None:
    """004 App.4: a press before the announcement is a false start; pressed again 5 ms after
    it, the pad counts (the coalescer starts afresh on every host input)."""
    c, events, _ = console()
    start = 1000 * MS
    scan(c, 0, start - 3 * MS)  # a false start
    c.host(HostAction.NEXT, at=start)
    scan(c, 0, start + 2 * MS)  # 5 ms after the last press of the pad: still counts
    assert [e["type"] for e in events if e["type"] in ("press_ignored", "signal_accepted")] == [
        "press_ignored", "signal_accepted"]


def test_a_chattering_seat_in_a_quartet_fight_is_coalesced_too() -> None:
    """The quartet's themes are judged by the «Своя игра» referee (004 §III 3.3, App.5): a team's
    chattering button reaches it once per window, and the first signal still answers."""
    config = config_from_dict({
        "console": {"node": "t1", "journal": ""},
        "game": {"kind": "quartet"},
        "players": [{"id": "t1", "name": "Совы", "pad": "mcu:0"},
                    {"id": "t2", "name": "Ежи", "pad": "mcu:1"}],
        "quartet": {"teams": [{"id": "t1", "players": ["Аня", "Боря", "Вика", "Гоша"]},
                              {"id": "t2", "players": ["Ель", "Жора", "Зоя", "Ира"]}]},
        "sources": {"mcu": {"kind": "simulated_mcu", "pads": 2}},
        "sound": {"enabled": False},
    }, "test")
    c = Console(config, clock=lambda: 0, journal=io.StringIO())
    events: list[dict[str, object]] = []
    c.wire_watchers.append(events.append)
    assert c.sources.coalescer is not None
    at = 1000 * MS
    for command in ({"action": "start_round", "themes": ["Реки", "Города", "Поэты", "Кино"]},
                    {"action": "assign", "team": "t1", "players": ["Аня", "Боря", "Вика", "Гоша"]},
                    {"action": "assign", "team": "t2", "players": ["Ель", "Жора", "Зоя", "Ира"]},
                    {"action": "start_theme"}, {"action": "next"}):
        at += 100 * MS
        c.feed([c.game.parse_command(command, at)], now=at)
    first = at + 10 * MS
    for i in range(500):
        scan(c, 0, first + i * MS)
        scan(c, 0, first + i * MS + MS // 2, pressed=False)
        if i == 5:
            scan(c, 1, first + i * MS)
    accepted = [e for e in events if e["type"] == "signal_accepted"]
    assert [e["player"] for e in accepted] == ["t1"] and accepted[0]["press_at_ns"] == first
    assert c.sources.coalescer.dropped >= 450
