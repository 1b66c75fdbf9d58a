"""A gap that cannot be repaired is said in the decision (issue 10, PROTOCOL.md 5.9).

When RESEND brings nothing back, the session hands on the held presses with a watermark that
carries ``lost_from_ns`` (the watermark before the gap); the referee keeps that span, and a
decision over it (`signal_accepted`) names the source in ``inputs_lost``.  A gap seen in the
handshake, before the clock is seeded, is asked for again like any other.  Session tests step
time by hand; the referee tests use the hand-stepped table; end to end, the simulated MCU's
frames that never existed (a device that cannot send them again) flag the decision.
"""

from __future__ import annotations

import asyncio

from console.engine.model import HostAction, Watermark
from console.engine.svoya.events import QuestionEnded
from console.games import game
from console.games.svoya.texts import describe
from console.scenario import step_to_json
from drivers.mcu_session import PadEdge
from drivers.mcu_session import Watermark as McuWatermark
from drivers.sim_mcu import SimulatedMcu
from firmware_proto import PROTOCOL_VERSION, HelloRequest, Resend
from tests.conftest import until
from tests.engine_harness import MS, Table
from tests.support.mcu_harness import RTT, TIMEOUT, Harness, connected_harness, sent
from tests.support.pty_console import svoya_console


def test_an_unrepaired_gap_marks_the_next_watermark() -> None:
    h = Harness()
    h.handshake()
    h.recv(h.device.heartbeat(h.now), 1 * MS)
    (floor,) = [i.ns for i in h.inputs if isinstance(i, McuWatermark)]  # all before it is in
    h.inputs.clear()
    h.device.seq += 1  # seq 1 never arrives, and RESEND brings nothing
    h.recv(h.device.press(h.now, 0b10), 1 * MS)
    h.timer(h.now + TIMEOUT)
    (mark,) = [i for i in h.inputs if isinstance(i, McuWatermark)]
    assert mark.lost_from_ns == floor
    # Said once: the next watermark is plain again.
    h.recv(h.device.heartbeat(h.now), 1 * MS)
    assert [i.lost_from_ns for i in h.inputs if isinstance(i, McuWatermark)][-1] is None


def test_a_repaired_gap_marks_nothing() -> None:
    h = connected_harness()
    lost = h.device.press(h.now + 1 * MS, 0b01)
    h.recv(h.device.press(h.now + 2 * MS, 0b10), 3 * MS)
    h.recv(lost, RTT)
    assert [i.lost_from_ns for i in h.inputs if isinstance(i, McuWatermark)] == [None]


def test_a_gap_in_the_handshake_is_asked_for_and_the_presses_keep_device_order() -> None:
    """Right after the port opens, frames arrive before the HELLO answer: a gap among them
    is asked for at once, and the frame sent again takes its place by its own stamp."""
    h = Harness()
    assert sent(h.open()) == [HelloRequest(PROTOCOL_VERSION)]
    h.recv(h.device.heartbeat(h.now), 1 * MS)  # seq 0, before the HELLO: held
    lost = h.device.press(h.now + 1 * MS, 0b01)  # seq 1, lost on the line
    out = h.recv(h.device.press(h.now + 2 * MS, 0b10), 3 * MS)  # seq 2 reveals the gap
    assert sent(out) == [Resend(1, 1)]
    h.recv(lost, 1 * MS)  # sent again before the HELLO arrives
    h.recv(h.device.hello(h.now + RTT // 2), RTT)
    edges = [i for i in h.inputs if isinstance(i, PadEdge)]
    assert [(e.seq, e.pads) for e in edges] == [(1, (0,)), (2, (1,))]
    assert edges[0].at_ns < edges[1].at_ns
    assert h.session.stats.repaired_frames == 1 and h.session.stats.lost_frames == 0


def test_the_decision_names_a_source_that_may_have_lost_a_press() -> None:
    """004 App.5 (the first signal answers): a press lost before B's cannot be ruled out, so
    the decision for B says the MCU may have lost one; the host checks it."""
    t = Table()
    t.host(HostAction.NEXT)
    t.advance(100 * MS)
    start = t.now
    t.advance(20 * MS)
    t.deliver(Watermark("mcu", start))
    t.advance(30 * MS)
    t.press("p2")  # B's press, then the watermark that carries the gap before it
    t.deliver(Watermark("mcu", t.now, lost_from=start))
    t.advance(20 * MS)  # past the GPIO source's declared delay
    (accepted,) = t.events("signal_accepted")
    assert accepted["player"] == "p2" and accepted["inputs_lost"] == ["mcu"]
    decision = t.ref.snapshot(t.now)["last_decision"]
    assert isinstance(decision, dict) and decision["inputs_lost"] == ["mcu"]


def test_a_span_after_the_decision_does_not_flag_it() -> None:
    """Frames lost after the winner's press (stamped later, PROTOCOL.md 5.2) change nothing."""
    t = Table()
    t.host(HostAction.NEXT)
    t.advance(100 * MS)
    t.press("p2")
    t.advance(8 * MS)  # before the decision (the GPIO source may take 10 ms)
    t.deliver(Watermark("mcu", t.now, lost_from=t.now - 5 * MS))
    t.advance(20 * MS)
    (accepted,) = t.events("signal_accepted")
    assert "inputs_lost" not in accepted


def test_nobody_signalled_over_a_lost_span_says_so() -> None:
    """004 App.10.3: the question ends when nobody signals in time; over a span where the MCU
    may have lost a press, that decision is not guaranteed either, and says so."""
    t = Table()
    t.host(HostAction.NEXT)
    t.advance(100 * MS)
    start = t.now
    t.advance(20 * MS)
    t.deliver(Watermark("mcu", t.now, lost_from=start))
    t.host(HostAction.READING_FINISHED)
    t.advance(7_100 * MS)
    t.deliver(Watermark("mcu", t.now))
    t.advance(100 * MS)
    (ended,) = t.events("question_ended")
    assert ended["reason"] == "no_signal" and ended["inputs_lost"] == ["mcu"]
    last_end = t.ref.snapshot(t.now)["last_end"]
    assert isinstance(last_end, dict) and last_end["inputs_lost"] == ["mcu"]
    (event,) = [o for o in t.outputs if isinstance(o, QuestionEnded)]
    assert "могли потеряться" in describe(event, {})  # the host is told, in Russian


def test_nobody_signalled_without_a_lost_span_says_nothing_more() -> None:
    t = Table()
    t.host(HostAction.NEXT)
    t.advance(100 * MS)
    t.host(HostAction.READING_FINISHED)
    t.advance(7_100 * MS)
    t.deliver(Watermark("mcu", t.now))
    t.advance(100 * MS)
    (ended,) = t.events("question_ended")
    assert ended["reason"] == "no_signal" and "inputs_lost" not in ended


def test_the_span_is_journalled() -> None:
    line = step_to_json(Watermark("mcu", 30 * MS, lost_from=10 * MS), 31 * MS, game("svoya"))
    assert line == {"at_ms": 30.0, "watermark": "mcu", "lost_from_ms": 10.0, "arrive_ms": 31.0}


async def test_a_press_lost_for_good_is_said_in_the_decision() -> None:
    """End to end: the frame before B's press never existed on the device (it cannot send it
    again), so after the wait B gets the turn and the decision says the MCU may have lost one."""
    with SimulatedMcu(pads=4) as sim:
        async with svoya_console(sim) as (console, link, events):
            console.host(HostAction.NEXT)
            await until(lambda: any(e["type"] == "question_started" for e in events))
            frames = link.stats.frames
            await until(lambda: link.stats.frames >= frames + 2)
            sim.skip_seq(1)  # a frame lost that RESEND cannot bring back
            await asyncio.sleep(0.01)
            sim.press(1)
            await until(lambda: any(e["type"] == "signal_accepted" for e in events))
            (accepted,) = [e for e in events if e["type"] == "signal_accepted"]
            assert accepted["player"] == "p2" and accepted["inputs_lost"] == ["mcu"]
            assert link.stats.lost_frames == 1
