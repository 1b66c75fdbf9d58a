"""A clock that cannot be trusted is noticed before it misjudges a press (issue 10).

The MCU's timer jumping ahead (+10 s), stepping back (−50 ms), restarting without a HELLO
or glitching on one frame is detected from the sequence numbers, the stamps' order and where
the mapping puts each frame against its arrival (a PONG must map inside its own round trip).
The session then flags the source ("resyncing"), re-seeds the clock with a HELLO round trip,
and holds the presses: those the new seed places near their arrival go on at their own time,
the others at their arrival, and the watermark after them carries ``lost_from_ns`` so that
the decision says the time was not known (``inputs_lost``).  A host that was merely busy is
told apart by a PING at once.  Session tests step time by hand; end to end, the «Своя игра»
console over a pty gives the turn to the player who pressed in time.
"""

from __future__ import annotations

import asyncio

from console.engine.model import HostAction
from drivers.mcu_session import PadEdge, Problem, StatusChanged, Watermark
from drivers.sim_mcu import SimulatedMcu
from firmware_proto import PROTOCOL_VERSION, HelloRequest, Ping
from tests.conftest import until
from tests.support.mcu_harness import MS, RTT, Device, Harness, sent
from tests.support.pty_console import svoya_console

S = 1000 * MS


def trusted() -> Harness:
    h = Harness()
    h.handshake()
    h.recv(h.device.heartbeat(h.now), 1 * MS)
    h.inputs.clear()
    return h


def statuses(h: Harness) -> list[str]:
    return [i.state for i in h.inputs if isinstance(i, StatusChanged)]


def reseed(h: Harness) -> None:
    """Answer the HELLO_REQUEST the session wrote (its round trip seeds the clock again)."""
    assert h.writes[-1] == HelloRequest(PROTOCOL_VERSION)
    h.recv(h.device.hello(h.now + RTT // 2), RTT)


def test_a_timer_jump_ahead_is_caught_on_the_first_frame() -> None:
    h = trusted()
    h.device.offset_us += 10_000_000  # +10 s, no HELLO
    pressed = h.now + 20 * MS
    out = h.recv(h.device.press(pressed, 0b1), 21 * MS)
    assert not any(isinstance(i, PadEdge) for i in out.inputs)  # never on the broken mapping
    assert statuses(h) == ["resyncing"] and "cannot be trusted" in h.inputs[0].message  # type: ignore[union-attr]
    assert sent(out) == [HelloRequest(PROTOCOL_VERSION)]
    reseed(h)
    (edge,) = [i for i in h.inputs if isinstance(i, PadEdge)]
    assert abs(edge.at_ns - pressed) <= RTT  # placed by the new seed, near when it happened
    (mark,) = [i for i in h.inputs if isinstance(i, Watermark)]
    assert mark.lost_from_ns is not None and mark.lost_from_ns <= pressed  # the decision says so
    assert statuses(h) == ["resyncing", "connected"]


def test_a_timer_step_back_is_caught_before_the_press_counts() -> None:
    """−50 ms, the press more than 50 ms after the last frame (so its stamp still goes up):
    it maps 50 ms early; the session pings at once and the PONG shows the broken mapping."""
    h = trusted()
    h.device.offset_us -= 50_000
    pressed = h.now + 80 * MS
    out = h.recv(h.device.press(pressed, 0b1), 81 * MS)
    (ping,) = sent(out)
    assert isinstance(ping, Ping) and h.edges() == []  # the press waits for the PONG
    h.recv(h.device.pong(out.writes[0], h.now + RTT // 2), RTT)
    assert statuses(h) == ["resyncing"]
    reseed(h)
    (edge,) = h.edges()
    assert abs(edge.at_ns - pressed) <= RTT


def test_a_timer_step_back_past_the_last_stamp_is_caught_at_once() -> None:
    h = trusted()
    h.device.offset_us -= 50_000
    out = h.recv(h.device.press(h.now + 10 * MS, 0b1), 11 * MS)  # stamped before the heartbeat
    assert sent(out) == [HelloRequest(PROTOCOL_VERSION)] and statuses(h) == ["resyncing"] and h.edges() == []


def test_a_busy_host_is_not_a_broken_clock() -> None:
    h = trusted()
    pressed = h.now + 1 * MS
    out = h.recv(h.device.press(pressed, 0b1), 60 * MS)  # read 59 ms late: the loop was busy
    assert h.edges() == []
    h.recv(h.device.pong(out.writes[0], h.now + RTT // 2), RTT)
    (edge,) = h.edges()
    assert edge.at_ns == pressed and statuses(h) == [] and h.problems() == []


def test_no_pong_in_time_counts_as_a_broken_clock() -> None:
    h = trusted()
    h.recv(h.device.press(h.now + 1 * MS, 0b1), 60 * MS)
    h.timer(h.session.next_deadline())
    assert statuses(h) == ["resyncing"] and h.writes[-1] == HelloRequest(PROTOCOL_VERSION)


def test_a_pong_late_because_the_host_is_still_busy_still_vouches() -> None:
    """The check's PONG read 150 ms after the PING (the host still busy, not the device): the
    mapping stands and the press keeps its own time."""
    h = trusted()
    pressed = h.now + 1 * MS
    out = h.recv(h.device.press(pressed, 0b1), 60 * MS)
    h.timer(h.now + 150 * MS)
    assert statuses(h) == [] and h.edges() == []
    h.recv(h.device.pong(out.writes[0], h.now - 149 * MS), 1 * MS)
    (edge,) = h.edges()
    assert edge.at_ns == pressed and statuses(h) == [] and h.problems() == []


def test_a_restart_without_hello_is_seen_from_the_sequence_number() -> None:
    h = trusted()
    for _ in range(30):
        h.recv(h.device.heartbeat(h.now + 10 * MS), 10 * MS)
    h.device = Device(offset_us=h.device.offset_us + 5_000_000, seq=0)  # restarted; HELLO lost
    h.inputs.clear()
    h.recv(h.device.heartbeat(h.now), 1 * MS)
    assert statuses(h) == ["resyncing"] and "went back from 30 to 0" in h.problems()[0]
    reseed(h)
    pressed = h.now + 5 * MS
    h.recv(h.device.press(pressed, 0b10), 6 * MS)
    (edge,) = h.edges()
    assert abs(edge.at_ns - pressed) <= RTT


def test_a_wrap_glitch_on_one_press_puts_it_at_its_arrival_and_flags_it() -> None:
    """The timer's upper half read early on one scan (+65.536 ms): that press's own stamp can
    never be placed; it goes on at its arrival, and its watermark says the time is unknown."""
    h = trusted()
    h.device.offset_us += 1 << 16
    arrival = h.now + 2 * MS
    h.recv(h.device.press(arrival - 1 * MS, 0b1), 2 * MS)
    h.device.offset_us -= 1 << 16  # the next scans read right again
    assert statuses(h) == ["resyncing"]
    reseed(h)
    (edge,) = h.edges()
    assert edge.at_ns == arrival  # the latest it can have been
    (mark,) = [i for i in h.inputs if isinstance(i, Watermark)]
    assert mark.ns == arrival and mark.lost_from_ns is not None
    assert [i for i in h.inputs if isinstance(i, Problem)]


async def test_a_press_after_a_timer_step_back_still_counts() -> None:
    """004 App.4: only a press before the value is announced is a false start.  The MCU's
    timer steps back 200 ms without a HELLO; B presses 100 ms after the announcement.  On the
    broken mapping that press would be 100 ms early (a false start); it takes the turn."""
    with SimulatedMcu(pads=4) as sim:
        async with svoya_console(sim) as (console, _link, events):
            console.host(HostAction.NEXT)
            await until(lambda: any(e["type"] == "question_started" for e in events))
            sim.step_timer(-200_000)
            await asyncio.sleep(0.1)
            pressed = sim.press(1)
            await until(lambda: any(e["type"] in ("signal_accepted", "press_ignored") for e in events))
            decided = [e for e in events if e["type"] in ("signal_accepted", "press_ignored")]
            assert [(e["type"], e["player"]) for e in decided] == [("signal_accepted", "p2")]
            assert abs(decided[0]["press_at_ns"] - pressed) < 20 * MS  # on the re-seeded clock


async def test_a_press_after_a_timer_jump_ahead_is_not_ten_seconds_late() -> None:
    with SimulatedMcu(pads=4) as sim:
        async with svoya_console(sim) as (console, _link, events):
            console.host(HostAction.NEXT)
            await until(lambda: any(e["type"] == "question_started" for e in events))
            sim.step_timer(10_000_000)
            await asyncio.sleep(0.02)
            pressed = sim.press(0)
            await until(lambda: any(e["type"] == "signal_accepted" for e in events))
            (accepted,) = [e for e in events if e["type"] == "signal_accepted"]
            assert accepted["player"] == "p1"
            assert abs(accepted["press_at_ns"] - pressed) < 20 * MS
            assert console.sources.status["mcu"] == "connected"  # re-seeded
