"""A gap in the MCU's sequence numbers is repaired, not just reported (issue 10, PROTOCOL.md 5.9).

The session asks for the missing frames with RESEND and holds back the presses and
watermarks that came after the gap until the frames are back (then hands them on in device
order) or the wait is over (then reports the gap as before and hands them on).  Pure session
tests step time by hand; end to end, the «Своя игра» console over a pty with the simulated MCU
losing A's PRESS on the line still gives A the turn.
"""

from __future__ import annotations

import asyncio

from console.engine.model import HostAction
from drivers.mcu_session import PadEdge, Problem, Watermark
from drivers.sim_mcu import SimulatedMcu
from firmware_proto import RESEND_DEPTH, Resend
from tests.conftest import until
from tests.support.mcu_harness import MS, PORT, RTT, TIMEOUT, Device, Harness, connected_harness, sent
from tests.support.pty_console import svoya_console


def test_a_gap_asks_for_the_missing_frames_and_holds_later_presses() -> None:
    h = connected_harness()
    lost_at = h.now + 1 * MS
    lost = h.device.press(lost_at, 0b01)  # seq 1: lost on the line
    out = h.recv(h.device.press(lost_at + 50 * MS, 0b10), 50 * MS + 1 * MS)  # seq 2
    assert sent(out) == [Resend(1, 1)]  # asked for at once
    assert out.inputs == []  # B's press and its watermark wait for the gap
    assert h.session.next_deadline() == h.now + TIMEOUT
    h.recv(h.device.heartbeat(h.now), 1 * MS)  # a later watermark waits too
    assert h.inputs == []
    out = h.recv(lost, RTT)  # the device sends seq 1 again, unchanged
    assert [type(i) for i in out.inputs] == [PadEdge, PadEdge, Watermark]
    a, b = h.edges()
    assert (a.pads, a.seq, b.pads, b.seq) == ((0,), 1, (1,), 2)  # device order
    assert a.at_ns < b.at_ns  # A placed by its own stamp
    (mark,) = h.watermarks()  # one, after the edges: the held heartbeat's (stamped with B)
    assert mark >= b.at_ns
    assert h.problems() == [] and h.session.stats.lost_frames == 0
    assert h.session.stats.repaired_frames == 1
    # The resent frame did not move the sequence: the next frame (seq 4) is no gap.
    out = h.recv(h.device.press(h.now, 0b100), 1 * MS)
    assert out.writes == [] and [e.pads for e in h.edges()][-1] == (2,) and h.problems() == []


def test_frames_not_sent_again_are_reported_as_lost_when_the_wait_is_over() -> None:
    h = connected_harness()
    h.device.seq += 2  # seq 1 and 2 never arrive (a device without RESEND, say)
    out = h.recv(h.device.press(h.now, 0b10), 1 * MS)  # seq 3
    assert sent(out) == [Resend(1, 2)] and out.inputs == []
    due = h.now + TIMEOUT
    assert h.session.next_deadline() == due
    assert h.timer(due - 1).inputs == []
    out = h.timer(due)
    assert [type(i) for i in out.inputs] == [Problem, PadEdge, Watermark]
    assert h.problems() == [f"Lost 2 frame(s) from the MCU on {PORT}: sequence number jumped "
                            "from 0 to 3; a press or release may be missing."]
    assert h.session.stats.lost_frames == 2 and [e.pads for e in h.edges()] == [(1,)]
    # Now everything passes at once again.
    out = h.recv(h.device.press(h.now, 0b1), 1 * MS)
    assert [type(i) for i in out.inputs] == [PadEdge, Watermark]


def test_a_partly_repaired_gap_reports_only_what_is_still_missing() -> None:
    h = connected_harness()
    first = h.device.press(h.now + 1 * MS, 0b1)  # seq 1: lost, comes back
    h.device.seq += 1  # seq 2: lost for good
    h.recv(h.device.press(h.now + 2 * MS, 0b10), 3 * MS)  # seq 3
    assert h.writes[-1] == Resend(1, 2)
    h.recv(first, RTT)
    assert h.edges() == []  # still waiting for seq 2
    h.timer(h.now + TIMEOUT)
    assert [p for p in h.problems() if "Lost 1 frame(s)" in p]
    assert [e.seq for e in h.edges()] == [1, 3]


def test_a_gap_across_the_wrap_of_the_sequence_number() -> None:
    h = connected_harness(Device(seq=0xFFFE))  # the heartbeat was 0xFFFE
    lost = [h.device.press(h.now + 1 * MS, 0b1), h.device.release(h.now + 2 * MS, 0b1)]  # FFFF, 0
    h.recv(h.device.press(h.now + 3 * MS, 0b10), 4 * MS)  # seq 1
    assert h.writes[-1] == Resend(0xFFFF, 2)
    h.recv(b"".join(lost), RTT)
    assert [(e.seq, e.pressed) for e in h.edges()] == [(0xFFFF, True), (0, False), (1, True)]
    assert h.problems() == []


def test_a_gap_too_deep_to_ask_for_is_reported_at_once() -> None:
    h = connected_harness()
    h.device.seq += RESEND_DEPTH + 1  # more than the device keeps
    out = h.recv(h.device.press(h.now, 0b10), 1 * MS)
    assert out.writes == [] and [type(i) for i in out.inputs] == [Problem, PadEdge, Watermark]
    assert f"Lost {RESEND_DEPTH + 1} frame(s)" in h.problems()[0]


def test_a_device_restart_hands_on_the_held_presses_first() -> None:
    h = connected_harness()
    h.device.seq += 1
    h.recv(h.device.press(h.now, 0b10), 1 * MS)
    assert h.edges() == []
    restarted = Device(offset_us=7)  # power-up HELLO on an unrelated timeline
    out = h.recv(restarted.hello(h.now), 1 * MS)
    kinds = [type(i) for i in out.inputs]
    assert kinds[:3] == [Problem, PadEdge, Watermark]  # the gap given up, then the press
    assert "Lost 1 frame(s)" in h.problems()[0] and "restarted" in h.problems()[1]


def test_the_end_of_the_round_hands_on_the_held_presses() -> None:
    h = connected_harness()
    h.device.seq += 1
    h.recv(h.device.press(h.now, 0b10), 1 * MS)
    out = h.take(h.session.lost("the port reported end of file", h.now + 1 * MS))
    assert [type(i).__name__ for i in out.inputs] == ["Problem", "PadEdge", "Watermark", "StatusChanged"]


async def test_a_press_lost_on_the_line_still_wins() -> None:
    """004 §2 (the first to signal answers): A's PRESS is lost on the line, B presses 50 ms
    later; the console asks for the frame again and A gets the turn."""
    with SimulatedMcu(pads=4) as sim:
        async with svoya_console(sim) as (console, link, events):
            console.host(HostAction.NEXT)
            await until(lambda: any(e["type"] == "question_started" for e in events))
            # Past the arming, and a HEARTBEAT seen (PINGs are a second apart, so two more
            # frames hold one), so that the gap shows against a known number.
            frames = link.stats.frames
            await until(lambda: link.stats.frames >= frames + 2)
            sim.lose_next_frames(1)
            sim.press(0)  # player p1: its PRESS never reaches the line
            await asyncio.sleep(0.05)
            sim.press(1)  # player p2, 50 ms later
            await until(lambda: any(e["type"] == "signal_accepted" for e in events))
            accepted = [e for e in events if e["type"] == "signal_accepted"]
            assert [e["player"] for e in accepted] == ["p1"]
            assert link.stats.lost_frames == 0 and link.stats.repaired_frames == 1


# -- a cable blip: the port lost and opened again, the box kept its power (issue 31) ----------------


def blip(h: Harness, away_ns: int) -> None:
    """The port is lost (what the box sends meanwhile never arrives: it kept its power);
    `away_ns` later the port opens again and the box answers the handshake."""
    h.take(h.session.lost("read failed: Input/output error", h.now))
    h.now += away_ns
    h.handshake()


def test_after_a_cable_blip_what_the_box_sent_meanwhile_is_asked_for_and_judged_on_its_stamps() -> None:
    """p1 presses 100 ms into a 0.3-s blip of the cable, p2 1.5 s later.  The box kept its
    power and its last 16 frames (5.9): the first frame of the new round shows the gap, the
    console asks for it, and p1's press is handed on at its own stamp, first, with nothing
    flagged as lost."""
    h = connected_harness()
    start = h.now
    meanwhile = [h.device.heartbeat(start + 50 * MS), h.device.press(start + 100 * MS, 0b01),
                 h.device.heartbeat(start + 150 * MS), h.device.heartbeat(start + 250 * MS)]
    blip(h, 500 * MS)
    h.inputs.clear()
    out = h.recv(h.device.press(start + 1600 * MS, 0b10), 1100 * MS)  # p2, seq 5
    assert sent(out) == [Resend(1, 4)]  # since the last number read (0), at once
    assert out.inputs == []  # p2 waits for the frames asked for
    for frame in meanwhile:  # the box sends them again, unchanged
        h.recv(frame, RTT // 4)
    edges = h.edges()
    assert [(e.pads, e.seq) for e in edges] == [((0,), 2), ((1,), 5)]  # device order
    assert abs(edges[0].at_ns - (start + 100 * MS)) < 1 * MS  # on its stamp, not its arrival
    assert [i.lost_from_ns for i in h.inputs if isinstance(i, Watermark)] == [None]
    assert h.session.stats.lost_frames == 0 and h.session.stats.repaired_frames == 4
    assert h.problems() == []


def test_a_box_away_longer_than_it_remembers_is_asked_for_the_newest_and_the_rest_is_lost() -> None:
    h = connected_harness()
    before = h.now
    h.device.seq += 20  # 20 frames sent while the port was away: the box keeps 16
    blip(h, 2000 * MS)
    h.inputs.clear()
    out = h.recv(h.device.heartbeat(h.now), 1 * MS)  # seq 21
    assert sent(out) == [Resend(5, RESEND_DEPTH)]
    h.timer(h.now + TIMEOUT)  # nothing comes back
    (mark,) = [i for i in h.inputs if isinstance(i, Watermark)]
    assert mark.lost_from_ns is not None and mark.lost_from_ns <= before
    assert h.session.stats.lost_frames == 20


def test_a_box_that_restarted_while_away_says_the_span_may_be_lost() -> None:
    """A power cycle: its timer and sequence numbers start again, it has nothing to send.
    Nothing is asked for, and the first watermark says everything since the last one may be
    missing (the decision over that span names the box)."""
    h = connected_harness()
    h.recv(h.device.heartbeat(h.now), 1 * MS)
    (floor,) = h.watermarks()
    h.take(h.session.lost("read failed: Input/output error", h.now))
    h.device = Device(offset_us=7)  # power cycled
    h.now += 500 * MS
    h.handshake()
    h.inputs.clear()
    writes = len(h.writes)
    h.recv(h.device.heartbeat(h.now), 1 * MS)
    assert not [w for w in h.writes[writes:] if isinstance(w, Resend)]
    (mark,) = [i for i in h.inputs if isinstance(i, Watermark)]
    assert mark.lost_from_ns == floor


def test_a_box_lost_before_its_first_numbered_frame_says_the_span_may_be_lost() -> None:
    """Connected, then the port lost before any numbered frame was read: nothing tells what the
    box sent meanwhile, so the first watermark of the next round says presses may be missing."""
    h = Harness()
    h.handshake()
    h.take(h.session.lost("read failed: Input/output error", h.now))
    h.device.seq += 3  # sent into the void
    h.now += 500 * MS
    h.handshake()
    h.inputs.clear()
    h.recv(h.device.heartbeat(h.now), 1 * MS)
    (mark,) = [i for i in h.inputs if isinstance(i, Watermark)]
    assert mark.lost_from_ns is not None
