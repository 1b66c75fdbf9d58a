"""McuSession, the MCU link's protocol without I/O: time is stepped by hand, nothing sleeps.

A hand-driven device (`Device`) builds the frames a firmware would send, stamped with its own
(offset, optionally drifting, wrapping) microsecond timer read at a given host time, so every
mapping can be checked against the exact host time the device event happened at.
"""

from __future__ import annotations

import itertools

import pytest

from drivers.link_state import LinkState
from drivers.mcu_session import (
    AngleReading,
    HeldPads,
    McuSession,
    PadEdge,
    Problem,
    StatusChanged,
    Watermark,
)
from firmware_proto import (
    PROTOCOL_VERSION,
    STAMP_MODULUS,
    AngleRate,
    Heartbeat,
    HelloRequest,
    Lamps,
    Ping,
    Pong,
    Resend,
    encode,
)
from tests.support.mcu_harness import MS, PORT, RTT, T0, Device, Harness, S, decode_one, sent


@pytest.fixture
def h() -> Harness:
    return Harness()


# -- handshake and clock ------------------------------------------------------------------------


def test_handshake_seeds_the_clock_and_sends_the_first_ping_at_once(h: Harness) -> None:
    out = h.open()
    assert sent(out) == [HelloRequest(PROTOCOL_VERSION)] and out.inputs == [] and not out.close
    assert not h.session.connected and not h.session.clock.ready
    assert h.session.next_deadline() == T0 + S  # the HELLO_REQUEST is asked again in 1 s

    hello_at = h.now + RTT // 2
    out = h.recv(h.device.hello(hello_at), RTT)
    assert h.session.connected and h.session.clock.ready
    ((state, detail),) = h.statuses()
    assert state == "connected"
    assert PORT in detail and "'test 1.0'" in detail and "4 pads" in detail
    assert out.writes == []  # no lamp state yet, nothing to re-send
    # The HELLO's stamp maps to the midpoint of the request's round trip.
    assert h.session.clock.to_host_ns(h.device.us(hello_at) + 0) == hello_at

    assert h.session.next_deadline() == T0  # the first PING is due as soon as connected
    out = h.timer()
    assert sent(out) == [Ping(0)]
    assert h.session.next_deadline() == h.now + S  # then every second

    h.recv(h.device.pong(out.writes[0], h.now + RTT // 2), RTT)
    assert h.session.clock.sample_count == 1  # the PONG replaced the provisional HELLO seed
    assert h.problems() == []


def test_presses_before_the_hello_wait_for_the_clock_then_come_in_order(h: Harness) -> None:
    h.open()
    # Pressed while the HELLO_REQUEST was on its way; the device sends in stamp order.
    first, second = T0 + 10_000, T0 + 20_000
    out = h.recv(h.device.press(first, 0b0001) + h.device.press(second, 0b0110), 50_000)
    assert out.inputs == []  # the clock is not seeded: nothing can be timed yet
    h.recv(h.device.hello(T0 + RTT // 2), RTT - 50_000)
    kinds = [type(item).__name__ for item in h.inputs]
    assert kinds == ["StatusChanged", "PadEdge", "Watermark", "PadEdge", "Watermark"]
    edges = h.edges()
    assert [e.pads for e in edges] == [(0,), (1, 2)]
    # The seed's round trip started at T0, before these presses: mapped exactly here.
    assert [e.at_ns for e in edges] == [first, second]


def test_an_unanswered_hello_request_is_repeated_and_reported_once(h: Harness) -> None:
    h.open()
    assert h.timer(T0 + S - 1).writes == []  # early: nothing due yet
    out = h.timer(T0 + S)
    assert sent(out) == [HelloRequest(PROTOCOL_VERSION)]
    ((state, detail),) = h.statuses()
    assert state == "disconnected" and "does not answer HELLO_REQUEST within 1 s" in detail
    out = h.timer(T0 + 2 * S)
    assert sent(out) == [HelloRequest(PROTOCOL_VERSION)]
    assert len(h.statuses()) == 1  # on change only
    assert not out.close  # the port stays open: closing it would reset many boards


def test_a_round_trip_too_slow_to_trust_asks_again(h: Harness) -> None:
    h.open()
    out = h.recv(h.device.hello(h.now + 15 * MS), 30 * MS)  # above the model's 20 ms limit
    assert sent(out) == [HelloRequest(PROTOCOL_VERSION)]
    assert not h.session.connected and not h.session.clock.ready
    h.recv(h.device.hello(h.now + RTT // 2), RTT)
    assert h.session.connected


def test_a_duplicate_hello_on_the_same_timeline_is_ignored(h: Harness) -> None:
    h.handshake()
    inputs = len(h.inputs)
    out = h.recv(h.device.hello(h.now), 10 * MS)  # a late answer to a repeated request
    assert out.writes == [] and len(h.inputs) == inputs and h.session.connected


def test_device_restart_without_unplug_resynchronises(h: Harness) -> None:
    h.handshake()
    h.device = Device(offset_us=-h.now // 1000 + 7)  # power cycle: its timer restarts near 0
    out = h.recv(h.device.hello(h.now + 1 * MS), 1 * MS)
    assert sent(out) == [HelloRequest(PROTOCOL_VERSION)]
    assert any("restarted" in p and PORT in p for p in h.problems())
    assert not h.session.clock.ready  # nothing from the old timeline carries over
    press_at = h.now + 1 * MS
    h.recv(h.device.press(press_at, 0b1000), 2 * MS)
    assert h.edges() == []  # waits for the new seed
    h.recv(h.device.hello(h.now + RTT // 2), RTT)
    (edge,) = h.edges()
    assert edge.pads == (3,) and abs(edge.at_ns - press_at) <= 2 * MS + RTT
    assert h.session.connected and h.session.stats.reconnects == 0


# -- presses and watermarks ---------------------------------------------------------------------


def test_edges_are_timed_by_the_stamp_and_followed_by_a_watermark(h: Harness) -> None:
    h.handshake()
    base = len(h.inputs)
    pressed_at = h.now + 10 * MS
    h.recv(h.device.press(pressed_at, 0b0100), 10 * MS + 30_000)
    released_at = h.now + 50 * MS
    h.recv(h.device.release(released_at, 0b0100), 50 * MS + 30_000)
    new = h.inputs[base:]
    assert new == [
        PadEdge((2,), True, pressed_at, h.device.us(pressed_at), 0),
        Watermark(pressed_at),
        PadEdge((2,), False, released_at, h.device.us(released_at), 1),
        Watermark(released_at),
    ]


def test_a_late_press_is_timed_when_it_happened_not_when_it_arrived(h: Harness) -> None:
    h.handshake()
    pressed_at = h.now
    out = h.recv(h.device.press(pressed_at, 0b10), 250 * MS)
    # That late, the session checks its clock first (issue 10): a PING, and the press waits.
    assert h.edges() == [] and len(out.writes) == 1
    h.recv(h.device.pong(out.writes[0], h.now + RTT // 2), RTT)
    (edge,) = h.edges()
    assert edge.at_ns == pressed_at and edge.at_ns < h.now - 200 * MS


def test_heartbeats_advance_the_watermark_which_never_goes_back(h: Harness) -> None:
    h.handshake()
    beat_at = h.now + 100 * MS
    out = h.recv(h.device.heartbeat(beat_at), 100 * MS)
    assert out.inputs == [Watermark(beat_at), HeldPads((), beat_at)]  # and which pads are down
    # A HEARTBEAT with the same stamp says nothing new: no watermark.  (An older stamp is a
    # timer that stepped back: tests/test_clock_trust.py.)
    assert h.recv(h.device.heartbeat(beat_at), 1 * MS).inputs == [HeldPads((), beat_at)]
    # An edge at the watermark is still followed by the (unchanged) watermark.
    out = h.recv(h.device.press(beat_at, 1), 1 * MS)
    assert [type(i) for i in out.inputs] == [PadEdge, Watermark]
    assert out.inputs[1] == Watermark(beat_at)
    assert h.watermarks() == sorted(h.watermarks())


def test_a_new_clock_sample_cannot_map_a_later_stamp_before_an_earlier_one(h: Harness) -> None:
    h.handshake()
    beat_at = h.now + 50 * MS
    h.recv(h.device.heartbeat(beat_at), 50 * MS)
    assert h.watermarks()[-1] == beat_at
    # A faster round trip whose PONG was stamped 100 µs after the midpoint: the best sample
    # now maps every MCU time 100 µs earlier.
    out = h.timer(h.session.next_deadline())
    h.recv(h.device.pong(out.writes[0], h.now + RTT // 4 + 100_000), RTT // 2)
    assert h.session.clock.to_host_ns(h.device.us(beat_at)) == beat_at - 100_000
    # A PRESS stamped 10 µs after that HEARTBEAT maps no earlier than it: the consumer may
    # already have settled everything up to the HEARTBEAT's watermark.
    out = h.recv(h.device.press(beat_at + 10_000, 1), 1 * MS)
    # Stamped a second before it arrived: the clock is checked first (issue 10).
    h.recv(h.device.pong(out.writes[0], h.now + RTT // 2 - 100_000), RTT)
    assert h.edges()[-1].at_ns == beat_at
    assert h.watermarks() == sorted(h.watermarks())


def test_the_watermark_never_goes_back_across_reconnects(h: Harness) -> None:
    h.handshake()
    h.recv(h.device.heartbeat(h.now + 100 * MS), 100 * MS)
    high = h.watermarks()[-1]
    h.take(h.session.lost("read failed: EIO", h.now))
    h.now += 500 * MS
    h.device = Device(offset_us=0, seq=0)
    h.handshake()
    # A press mapped before the old watermark (clock error) cannot pull it back.
    out = h.recv(h.device.heartbeat(h.now - 700 * MS), 1 * MS)
    h.recv(h.device.pong(out.writes[0], h.now + RTT // 2), RTT)  # late: checked (issue 10)
    h.recv(h.device.press(h.now, 1), 1 * MS)
    assert min(h.watermarks()[1:]) >= high


def test_the_timer_wrap_keeps_edges_in_order(h: Harness) -> None:
    h.device = Device(offset_us=STAMP_MODULUS - T0 // 1000 - 200_000)  # wraps 200 ms in
    h.handshake()
    for _ in range(8):
        h.recv(h.device.press(h.now + 60 * MS, 1), 60 * MS)
    stamps = [e.mcu_us for e in h.edges()]
    assert stamps[0] < STAMP_MODULUS <= stamps[-1], "the timer did not wrap"
    assert stamps == sorted(stamps)
    assert [e.at_ns for e in h.edges()] == sorted(e.at_ns for e in h.edges())
    assert h.problems() == []


def test_drift_is_tracked_by_the_pings(h: Harness) -> None:
    """At 200 ppm an offset-only model would be off by 0.2 ms per second; the fit is not."""
    h.session = McuSession(PORT, ping_interval_ns=50 * MS)
    h.device = Device(drift_ppm=200.0, offset_us=-5_000_000)
    h.handshake()
    for _ in range(20):
        h.recv(h.device.heartbeat(h.now + 25 * MS), 25 * MS)  # keep it from going silent
        h.ping_round()
    assert 150 < h.session.clock.drift_ppm < 250
    pressed_at = h.now + 2 * S
    h.recv(h.device.heartbeat(h.now + S), S)
    h.recv(h.device.press(pressed_at, 1), S)
    assert abs(h.edges()[-1].at_ns - pressed_at) < 20_000  # offset-only: 400 µs off


# -- angles ----------------------------------------------------------------------------------------


def test_angles_after_the_seed_never_go_back_in_time(h: Harness) -> None:
    h.open()
    assert h.recv(h.device.angle(T0 + 10_000, 100), 20_000).inputs == []  # no clock: dropped
    h.recv(h.device.hello(T0 + RTT // 2), RTT - 20_000)
    read_at = h.now + 5 * MS
    out = h.recv(h.device.angle(read_at, 200), 5 * MS)
    assert out.inputs == [AngleReading(200, 1, read_at, h.device.us(read_at), 1)]
    assert h.watermarks() == []  # angles do not vouch for presses
    # An older stamp (out of order) is a timer that stepped back (issue 10): never handed on
    # earlier than the last reading.
    out = h.recv(h.device.angle(read_at - 1 * MS, 300), 1 * MS)
    assert all(r.at_ns >= read_at for r in out.inputs if isinstance(r, AngleReading))


def test_without_an_angle_consumer_no_readings_are_built() -> None:
    h = Harness(session=McuSession(PORT, angles=False))
    h.handshake()
    assert h.recv(h.device.angle(h.now, 200), 1 * MS).inputs == []
    assert h.session.stats.frames == 3  # HELLO, PONG, ANGLE: read, just not handed on


def test_a_stream_faster_than_the_table_needs_is_thinned_before_it_is_mapped() -> None:
    # 1 kHz readings, the table taking 250 a second (spin.max_rate_hz): one in four is handed
    # on, every one still counted in the sequence, and a change of the sensor's status
    # (the magnet lost) is never thinned away.
    h = Harness(session=McuSession(PORT, angle_interval_us=4000))
    h.handshake()
    start = h.now
    for i in range(12):
        h.recv(h.device.angle(start + i * MS, 100 + i), 1 * MS)
    kept = [r.raw for r in h.of(AngleReading) if isinstance(r, AngleReading)]
    assert kept == [100, 104, 108]
    h.recv(h.device.angle(h.now, 500, status=0b011), 1 * MS)  # magnet too weak: kept at once
    h.recv(h.device.angle(h.now, 501, status=0b011), 1 * MS)  # 1 ms later, same status: dropped
    assert [r.raw for r in h.of(AngleReading) if isinstance(r, AngleReading)] == [100, 104, 108, 500]
    assert h.problems() == []  # no frame missed: the sequence followed every one


def test_the_device_is_asked_for_the_tables_rate_after_every_hello_that_connects_it() -> None:
    # PROTOCOL.md 4.12: a box that thins as the session does sends a quarter of a 1 kHz
    # stream; one that restarted has forgotten the request, so every connecting HELLO brings
    # it again. A u16: a longer interval is asked as 65 535 µs and the rest thinned here.
    h = Harness(session=McuSession(PORT, angle_interval_us=4000))
    h.open()
    out = h.recv(h.device.hello(h.now + RTT // 2), RTT)
    assert sent(out) == [AngleRate(4000)]
    h.take(h.session.lost("read failed: Input/output error", h.now))
    h.now += 500 * MS
    h.device = Device(offset_us=0)  # power cycled
    h.open()
    assert sent(h.recv(h.device.hello(h.now + RTT // 2), RTT)) == [AngleRate(4000)]
    for session in (McuSession(PORT, angles=False, angle_interval_us=4000), McuSession(PORT)):
        quiet = Harness(session=session)  # no angle consumer, or one taking every reading
        quiet.open()
        assert sent(quiet.recv(quiet.device.hello(quiet.now + RTT // 2), RTT)) == []
    slow = Harness(session=McuSession(PORT, angle_interval_us=100_000))
    slow.open()
    assert sent(slow.recv(slow.device.hello(slow.now + RTT // 2), RTT)) == [AngleRate(0xFFFF)]


def test_a_burst_in_one_frame_gives_each_reading_its_own_time() -> None:
    # PROTOCOL.md 4.11: an ANGLES frame is stamped with its newest reading, each older one
    # with its age; thinned as ANGLE frames are (one reading in four at 1 kHz for 250 Hz),
    # the sequence advancing by one frame, not by reading.
    h = Harness(session=McuSession(PORT, angle_interval_us=4000))
    h.handshake()
    start = h.now
    first = [(start + i * MS, 100 + i) for i in range(13)]
    h.recv(h.device.angles(first), 13 * MS)
    second = [(start + (13 + i) * MS, 113 + i) for i in range(7)]
    h.recv(h.device.angles(second), 7 * MS)
    readings = [r for r in h.of(AngleReading) if isinstance(r, AngleReading)]
    assert [r.raw for r in readings] == [100, 104, 108, 112, 116]
    for reading in readings:  # each at its own time, whichever frame carried it
        assert abs(reading.at_ns - (start + (reading.raw - 100) * MS)) < 20_000
    assert [r.seq for r in readings] == [0, 0, 0, 0, 1]  # a number a frame
    assert h.problems() == []  # no frame missed: one number a frame


def test_a_burst_whose_status_changes_keeps_the_change() -> None:
    h = Harness(session=McuSession(PORT, angle_interval_us=4000))
    h.handshake()
    start = h.now
    h.recv(h.device.angles([(start, 10), (start + MS, 11)]), 2 * MS)
    h.recv(h.device.angles([(start + 2 * MS, 12)], status=0b011), MS)  # the magnet too weak
    assert [(r.raw, r.status) for r in h.of(AngleReading) if isinstance(r, AngleReading)] == [
        (10, 1), (12, 0b011)]


def test_a_burst_before_the_clock_is_seeded_is_dropped(h: Harness) -> None:
    h.open()
    assert h.recv(h.device.angles([(T0 + 5_000, 1), (T0 + 6_000, 2)]), 20_000).inputs == []


# -- pings -------------------------------------------------------------------------------------------


def test_pings_follow_their_schedule_skip_a_backlog_and_forget_the_unanswered(h: Harness) -> None:
    h.handshake()  # PING 0 answered
    first_due = h.session.next_deadline()
    assert first_due == h.now - RTT + S  # a second after PING 0 went out
    pings: list[tuple[int, int]] = []  # (ping_id, host ns sent)
    skipped_at = None
    for _ in range(120):  # 12 s in steps of 100 ms, a heartbeat each (never silent)
        h.recv(h.device.heartbeat(h.now + 100 * MS), 100 * MS)
        due = h.session.next_deadline()
        assert due is not None
        if due <= h.now:
            backlog = len(pings) == 3 and skipped_at is None
            out = h.timer(backlog=backlog)
            if backlog:
                assert out.writes == [] and skipped_at is None
                skipped_at = h.now
            pings += [(m.ping_id, h.now) for m in sent(out) if isinstance(m, Ping)]
    ids = [ping_id for ping_id, _ in pings]
    assert ids == list(range(1, len(ids) + 1)) and len(ids) == 11  # 12 rounds, one skipped
    times = [at for _, at in pings]
    assert all(S <= b - a < S + 100 * MS for a, b in itertools.pairwise(times)
               if not a < (skipped_at or 0) < b)
    assert skipped_at is not None and times[3] - skipped_at >= S  # skipped, not delayed


def test_only_the_eight_newest_pings_are_remembered() -> None:
    h = Harness(session=McuSession(PORT, ping_interval_ns=1 * MS))
    h.handshake()  # PING 0 answered: one sample
    for _ in range(9):
        h.now += 1 * MS
        h.timer()
    assert [m.ping_id for m in h.writes if isinstance(m, Ping)] == list(range(10))
    answered_at = h.device.us(h.now)
    h.recv(encode(Pong(1, answered_at)), RTT)  # forgotten: no usable bracket
    assert h.session.clock.sample_count == 1
    h.recv(encode(Pong(2, answered_at)), RTT)
    assert h.session.clock.sample_count == 2
    h.recv(encode(Pong(2, answered_at)), RTT)  # answered twice: the second is no bracket
    assert h.session.clock.sample_count == 2


# -- silence and the end of a round -------------------------------------------------------------------


def test_a_silent_device_is_dropped(h: Harness) -> None:
    h.handshake()
    h.recv(h.device.heartbeat(h.now), 1 * MS)
    heard = h.now
    assert not h.timer(heard + S - 1).close  # a PING went out, but not silent yet
    out = h.timer(heard + S)
    assert out.close and not h.session.connected
    state, detail = h.statuses()[-1]
    assert state == "disconnected"
    assert "nothing received for 1 s (heartbeats are due every 100 ms)" in detail
    assert "reconnecting every 0.5 s" in detail and PORT in detail
    assert h.session.next_deadline() is None
    assert h.session.lamps(1, 0) is None


def test_bytes_keep_the_device_alive(h: Harness) -> None:
    h.handshake()
    for _ in range(30):
        h.recv(h.device.heartbeat(h.now + 100 * MS), 100 * MS)
        due = h.session.next_deadline()
        assert due is not None and due > h.now
        if due <= h.now + 100 * MS:
            assert not h.timer(due).close


def test_reconnecting_starts_afresh_and_counts_reconnects(h: Harness) -> None:
    h.handshake()
    h.session.lamps(0b0101, 0b0010)
    out = h.take(h.session.lost("read failed: Input/output error", h.now))
    assert out.close and out.writes == []
    assert h.statuses()[-1] == (
        "disconnected",
        f"The MCU on {PORT} was disconnected (read failed: Input/output error); "
        "reconnecting every 0.5 s.",
    )
    assert h.take(h.session.lost("again", h.now)).inputs == []  # already over
    h.now += 500 * MS
    h.device = Device(offset_us=0)  # power cycled: timer and sequence numbers restart
    h.open()
    out = h.recv(h.device.hello(h.now + RTT // 2), RTT)
    assert sent(out) == [Lamps(0b0101, 0b0010)]  # a restarted device has its lamps off
    assert h.session.stats.reconnects == 1
    assert [s for s, _ in h.statuses()] == ["connected", "disconnected", "connected"]
    h.recv(h.device.press(h.now, 1), 1 * MS)
    assert h.problems() == []  # seq 0 again is no gap: a new round


def test_open_failures_are_reported_once_while_they_last(h: Harness) -> None:
    detail = f"Cannot open the MCU port {PORT}: it does not exist; retrying every 0.5 s."
    assert h.session.open_failed(detail).inputs == [StatusChanged(LinkState.DISCONNECTED, detail)]
    assert h.session.open_failed(detail).inputs == []
    assert h.session.next_deadline() is None


# -- lamps ---------------------------------------------------------------------------------------------


def test_lamps_are_written_when_connected_and_remembered_otherwise(h: Harness) -> None:
    assert h.session.lamps(0b1, 0) is None  # not connected: remembered
    h.open()
    assert h.session.lamps(0b11, 0b100) is None
    out = h.recv(h.device.hello(h.now + RTT // 2), RTT)
    assert sent(out) == [Lamps(0b11, 0b100)]  # the latest state, re-sent on connecting
    frame = h.session.lamps(0b1000, 0)
    assert frame is not None and decode_one(frame) == Lamps(0b1000, 0)
    with pytest.raises(ValueError):
        h.session.lamps(1 << 16, 0)
    assert decode_one(h.session.lamps(0, 0) or b"") == Lamps(0, 0)
    # The frames are built once per lamp state, but a mask that is no int is refused every
    # time, even when an equal int's frame is at hand (True == 1).
    assert h.session.lamps(1, 0) is not None
    with pytest.raises(TypeError):
        h.session.lamps(True, 0)


# -- protocol problems ------------------------------------------------------------------------------------


def test_garbage_corruption_and_seq_gaps_are_reported(h: Harness) -> None:
    h.handshake()
    h.recv(b"\x00line noise \xff\xfe\x00", 1 * MS)
    (problem,) = h.problems()
    assert "Bad frame" in problem and PORT in problem
    frame = bytearray(encode(Heartbeat(0x1234, 0x12345678, 0x0303)))
    frame[3] ^= 0x40  # one flipped bit in a data byte (not a COBS code byte)
    h.recv(bytes(frame), 1 * MS)
    assert "CRC mismatch" in h.problems()[-1]
    h.recv(h.device.press(h.now, 1), 1 * MS)
    h.device.seq += 3
    h.recv(h.device.press(h.now, 2), 1 * MS)
    # Asked for again (5.9); the device does not answer: reported once the wait is over.
    assert h.writes[-1] == Resend(1, 3) and not [p for p in h.problems() if "Lost" in p]
    h.timer(h.now + 50 * MS)
    gap = [p for p in h.problems() if "Lost" in p]
    assert gap == [f"Lost 3 frame(s) from the MCU on {PORT}: sequence number jumped from 0 to 4; "
                   "a press or release may be missing."]
    assert h.session.stats.lost_frames == 3
    assert h.session.stats.errors == 2  # the two bad frames; the gap is counted as lost frames
    assert [e.pads for e in h.edges()] == [(0,), (1,)]  # the presses still count
    h.device.seq = 2  # no longer missing: a repeat
    h.recv(h.device.heartbeat(h.now), 1 * MS)
    assert "Out-of-order or repeated frame" in h.problems()[-1]
    assert h.session.stats.errors == 3


def test_an_echoed_host_frame_is_a_problem(h: Harness) -> None:
    h.handshake()
    h.recv(encode(Ping(5)), 1 * MS)
    assert "host-to-device Ping frame; is the port echoing?" in h.problems()[-1]


def test_a_line_full_of_noise_is_reported_as_a_count_not_frame_by_frame(h: Harness) -> None:
    h.handshake()
    noisy_at = h.now + 1 * MS
    out = h.recv(b"line noise\x00" * 200 + h.device.press(h.now + 1 * MS, 0b10), 1 * MS)
    assert [e.pads for e in h.edges()] == [(1,)]  # a press in the middle still counts
    assert h.session.stats.errors == 200
    assert len(h.problems()) == 5
    assert sum(isinstance(i, Problem) for i in out.inputs) == 5
    due = h.session.next_deadline()
    assert due is not None and due <= noisy_at + S  # the count is due when its second is over
    h.timer(noisy_at + S - 1)
    assert len(h.problems()) == 5
    h.timer(noisy_at + S)
    assert h.problems()[-1].startswith(f"195 more problem(s) with the MCU on {PORT}")
    assert len(h.problems()) == 6


def test_problems_held_back_are_counted_when_the_round_ends(h: Harness) -> None:
    h.handshake()
    h.recv(b"noise\x00" * 8, 1 * MS)
    out = h.take(h.session.lost("the port reported end of file", h.now + 1 * MS))
    assert [type(i) for i in out.inputs] == [Problem, StatusChanged]
    assert isinstance(out.inputs[0], Problem) and out.inputs[0].message.startswith("3 more problem(s)")


# -- incompatible devices ----------------------------------------------------------------------------------


def test_an_incompatible_device_is_refused_until_new_firmware_says_hello(h: Harness) -> None:
    h.open()
    h.recv(h.device.hello(h.now, version=PROTOCOL_VERSION + 1, firmware="future 9.0"), RTT)
    ((state, detail),) = h.statuses()
    assert state == "incompatible" and PORT in detail and "future 9.0" in detail
    assert f"version {PROTOCOL_VERSION + 1}" in detail and f"version {PROTOCOL_VERSION}" in detail
    assert h.session.next_deadline() is None  # waits quietly: no more HELLO_REQUESTs
    frames = h.session.stats.frames
    h.recv(h.device.press(h.now, 1) + h.device.heartbeat(h.now), 1 * MS)
    assert h.session.stats.frames == frames + 2 and h.edges() == [] and h.watermarks() == []
    assert not h.session.connected
    # New firmware: its power-up HELLO starts a handshake.
    out = h.recv(h.device.hello(h.now), 1 * S)
    assert sent(out) == [HelloRequest(PROTOCOL_VERSION)]
    h.recv(h.device.hello(h.now + RTT // 2), RTT)
    assert h.session.connected and h.statuses()[-1][0] == "connected"


def test_an_incompatible_hello_stops_edges(h: Harness) -> None:
    h.handshake()
    h.recv(h.device.hello(h.now, version=PROTOCOL_VERSION + 1, firmware="other 2.0"), 1 * MS)
    assert h.statuses()[-1][0] == "incompatible" and not h.session.connected
    h.recv(h.device.press(h.now, 1), 1 * MS)
    assert h.edges() == []
    assert h.session.lamps(1, 0) is None
