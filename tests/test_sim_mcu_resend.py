"""The simulated MCU's gap repair (PROTOCOL.md 5.9): frames lost on the line come back, as they
were first sent, when the host asks with RESEND; and its bursts of angle readings (4.11).

The host side here is a raw pty reader with the real FrameDecoder, so the test sees exactly
what the device puts on the line (the host's own use of RESEND is not part of this test).
"""

from __future__ import annotations

import itertools
import os
import select
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from drivers.sim_mcu import SimulatedMcu
from drivers.sim_top import LiveTopFeed, SimTop
from firmware_proto import (
    MAX_ANGLES_PER_FRAME,
    RESEND_DEPTH,
    Angle,
    Angles,
    FrameDecoder,
    Heartbeat,
    Hello,
    Message,
    Press,
    ProtocolError,
    Release,
    Resend,
    encode,
)


class RawHost:
    """The host end of the pty, read and written by hand."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.decoder = FrameDecoder()

    def read(self, seconds: float = 0.2) -> list[Message | ProtocolError]:
        """Everything decoded within ``seconds`` (the sim writes from this process's threads)."""
        items: list[Message | ProtocolError] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([self.fd], [], [], left)
            if readable:
                items += self.decoder.feed(os.read(self.fd, 4096))
        return items

    def read_chunks(self, seconds: float) -> list[list[Message | ProtocolError]]:
        """What each read within ``seconds`` decoded, a list a read (the reader waits 5 ms
        between reads, as a busy host does, so a read holds what one write or more sent)."""
        chunks: list[list[Message | ProtocolError]] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([self.fd], [], [], left)
            if readable:
                chunks.append(self.decoder.feed(os.read(self.fd, 4096)))
                time.sleep(0.005)
        return chunks

    def send(self, msg: Message) -> None:
        os.write(self.fd, encode(msg))


@contextmanager
def raw_host() -> Iterator[tuple[SimulatedMcu, RawHost]]:
    # Heartbeats far apart, so that only the frames the test makes are on the line.
    with SimulatedMcu(pads=4, heartbeat_interval=60.0) as sim:
        fd = os.open(sim.port, os.O_RDWR | os.O_NOCTTY)  # raw already: the sim set the pty so
        try:
            host = RawHost(fd)
            # What came before the test (HELLO, the first heartbeat) is not its business.
            assert not [item for item in host.read(0.1) if isinstance(item, ProtocolError)]
            yield sim, host
        finally:
            os.close(fd)


def test_a_press_lost_on_the_line_comes_back_unchanged_on_resend() -> None:
    with raw_host() as (sim, host):
        sim.press(0)
        sim.lose_next_frames(1)
        sim.press(1)  # lost on the way: the host sees a gap
        sim.release(0)
        got = [item for item in host.read() if not isinstance(item, Hello)]
        assert [type(m) for m in got] == [Press, Release]
        first, after = got
        assert isinstance(first, Press) and isinstance(after, Release)
        assert after.seq == first.seq + 2  # one frame missing

        host.send(Resend(from_seq=first.seq + 1, count=1))
        (resent,) = host.read()
        assert isinstance(resent, Press)
        assert resent.seq == first.seq + 1 and resent.pads == 0b10
        # Stamped when it was pressed, between the two frames the host did get.
        assert first.timestamp_us <= resent.timestamp_us <= after.timestamp_us

        # Asking again gives the same frame again; the device's own counter did not move.
        host.send(Resend(from_seq=first.seq + 1, count=1))
        assert host.read() == [resent]
        sim.press(2)
        (next_press,) = host.read()
        assert isinstance(next_press, Press) and next_press.seq == after.seq + 1


def test_resend_sends_what_is_still_kept_in_order_and_skips_the_rest() -> None:
    with raw_host() as (sim, host):
        for pad in range(RESEND_DEPTH + 4):  # more frames than the device keeps
            sim.press(pad % 4)
        sent = host.read()
        assert all(isinstance(m, Press) for m in sent)
        first = sent[0]
        assert isinstance(first, Press) and first.seq < 10
        kept = sent[-RESEND_DEPTH:]

        # From before the oldest kept frame to past the newest: only the kept ones, in order.
        host.send(Resend(from_seq=0, count=255))
        assert host.read() == kept
        # A range that wraps below zero: the kept frames inside it.
        host.send(Resend(from_seq=0xFFFF, count=RESEND_DEPTH + 5))
        inside = [m for m in kept if isinstance(m, Press) and (m.seq + 1) % 0x10000 < RESEND_DEPTH + 5]
        assert 0 < len(inside) < len(kept)
        assert host.read() == inside
        # Numbers not used yet: nothing.
        host.send(Resend(from_seq=1000, count=5))
        assert host.read() == []


def test_a_power_cycle_forgets_the_kept_frames() -> None:
    with SimulatedMcu(pads=4, heartbeat_interval=60.0, reset_timer_on_replug=True) as sim:
        sim.press(0)
        time.sleep(0.05)  # the first heartbeat and the press are numbered before the power cycle
        sim.replug()
        fd = os.open(sim.port, os.O_RDWR | os.O_NOCTTY)  # raw already: the sim set the pty so
        try:
            host = RawHost(fd)
            assert Hello in [type(m) for m in host.read(0.1)]
            host.send(Resend(from_seq=0, count=1))  # the heartbeat's, but before the power cycle
            assert host.read() == []
        finally:
            os.close(fd)


def test_a_burst_of_readings_leaves_as_angles_frames_and_comes_back_on_resend() -> None:
    # PROTOCOL.md 4.11 and 5.8: readings gathered into one write go as ANGLES frames of up to
    # 13 readings with one status (a new frame when the status changes), each reading with
    # its age before the frame's newest; a lone reading as ANGLE.
    with raw_host() as (sim, host):
        def reading(i: int) -> Callable[[int], tuple[int, int]]:
            return lambda _at: (100 + i, 1 if i < 20 else 0b011)  # the magnet too weak from 20 on

        reads = [sim.sample_angle(reading(i)) for i in range(30)]
        sim.flush_angles()
        frames = host.read()
        assert [type(m) for m in frames] == [Angles, Angles, Angles]
        sizes = [len(m.readings) for m in frames if isinstance(m, Angles)]
        assert sizes == [MAX_ANGLES_PER_FRAME, 7, 10]
        assert [m.status for m in frames if isinstance(m, Angles)] == [1, 1, 0b011]
        seqs = [m.seq for m in frames if isinstance(m, Angles)]
        assert seqs == [seqs[0], seqs[0] + 1, seqs[0] + 2]
        got = [(raw, m.timestamp_us - age)
               for m in frames if isinstance(m, Angles) for age, raw in m.readings]
        assert [raw for raw, _ in got] == list(range(100, 130))
        # Each reading stamped when it was read (the sim's timer is the host clock in µs).
        assert all(read is not None for read in reads)
        read_ns = [read[2] for read in reads if read is not None]
        for (_, stamp), at in zip(got, read_ns, strict=True):
            assert abs((stamp - got[0][1]) - (at - read_ns[0]) // 1000) <= 1

        host.send(Resend(from_seq=seqs[1], count=1))
        assert host.read() == [frames[1]]

        sim.sample_angle(lambda _at: (7, 1))
        sim.flush_angles()
        (lone,) = host.read()
        assert isinstance(lone, Angle) and lone.raw_angle == 7 and lone.seq == seqs[2] + 1


@pytest.mark.timing  # the simulator's threads keep real time
def test_a_stream_of_bursts_carries_every_heartbeat_and_keeps_them_within_100_ms() -> None:
    # PROTOCOL.md 5.4: consecutive HEARTBEAT stamps differ by at most 100 000 µs whatever else
    # is sent. A heartbeat due while a burst is gathered (40 ms, as the firmware's
    # ANGLE_BATCH_US) leaves with it, so the host wakes once a burst, not once more for it.
    with SimulatedMcu(pads=1) as sim:  # heartbeats every 50 ms
        fd = os.open(sim.port, os.O_RDWR | os.O_NOCTTY)
        try:
            host = RawHost(fd)
            host.read(0.1)  # HELLO and what came before the stream
            with LiveTopFeed(SimTop(seed=3, rate_hz=1000.0), sim):
                chunks = host.read_chunks(1.5)
        finally:
            os.close(fd)
    stamps = [m.timestamp_us for chunk in chunks for m in chunk if isinstance(m, Heartbeat)]
    assert len(stamps) >= 10
    gaps = [later - earlier for earlier, later in itertools.pairwise(stamps)]
    assert max(gaps) <= 100_000, gaps
    bursts = [chunk for chunk in chunks if any(isinstance(m, Angles) for m in chunk)]
    alone = [chunk for chunk in chunks if chunk and all(isinstance(m, Heartbeat) for m in chunk)]
    assert 25 <= len(bursts) <= 45  # 1.5 s of 40 ms bursts (one may be split by a read)
    assert len(alone) <= 1  # (the first, due before the stream's first burst had begun)
