"""Noise on the serial line does not change who gets the turn (issue 10, PROTOCOL.md 2.4-2.5).

The device sends a 0x00 before every frame and the host's decoder resynchronises on it, so a
stray byte just before a PRESS is reported on its own and the press still counts.  End to
end: the «Своя игра» console with the real serial driver against the simulated MCU over a
pty; and the real firmware image (simavr) is checked to put the delimiter before every frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import time
import tty
from typing import Any

import pytest

from console.engine.model import HostAction
from drivers.sim_mcu import SimulatedMcu
from firmware_proto import FrameDecoder, Heartbeat, Hello, Message, ProtocolError, Resend, encode_delimited
from tests.conftest import until
from tests.support.firmware_sim import Chip, built, chip, needs_firmware_sim
from tests.support.pty_console import svoya_console

__all__ = ["built", "chip"]  # fixtures used by the firmware test below


def _kinds(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


@pytest.mark.parametrize(
    "noise",
    [b"\x5a", b"\x01", bytes(range(0x80, 0xC0)), b"\x55" * 100, bytes.fromhex("03 02 07 04 40")],
    ids=["a stray byte", "a stray 0x01", "a burst", "an over-long burst", "half a frame"],
)
async def test_noise_just_before_a_press_does_not_hand_the_turn_to_a_later_press(noise: bytes) -> None:
    """004 §2 (the first to signal answers): A presses, noise reaches the line just before
    A's PRESS frame, B presses 50 ms later; A gets the turn, and the noise is one error."""
    with SimulatedMcu(pads=4) as sim:
        async with svoya_console(sim) as (console, link, events):
            console.host(HostAction.NEXT)
            await until(lambda: _kinds(events, "question_started"))
            await asyncio.sleep(0.02)  # past the arming of the question
            errors_before, frames_before = link.stats.errors, link.stats.frames
            sim.press(0, noise=noise)  # player p1
            await asyncio.sleep(0.05)
            sim.press(1)  # player p2, 50 ms later
            await until(lambda: _kinds(events, "signal_accepted"))
            await until(lambda: link.stats.frames >= frames_before + 2)
            accepted = _kinds(events, "signal_accepted")
            assert [e["player"] for e in accepted] == ["p1"]
            assert link.stats.errors - errors_before == 1  # the noise, reported once
            assert link.stats.lost_frames == 0


# --------------------------------------------------------------------------- the real firmware


@needs_firmware_sim
def test_the_firmware_sends_a_delimiter_before_every_frame(chip: Chip) -> None:
    """The box firmware's own bytes: power-up HELLO and heartbeats, each as 00 ‖ frame ‖ 00."""
    fd = os.open(chip.port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        tty.setraw(fd)
        data = bytearray()
        deadline = time.monotonic() + 0.5  # a few heartbeats (at least one every 100 ms)
        while time.monotonic() < deadline:
            readable, _, _ = select.select([fd], [], [], 0.05)
            if readable:
                with contextlib.suppress(BlockingIOError):
                    data += os.read(fd, 4096)
    finally:
        os.close(fd)
    # Skip whatever was torn by opening the port late: start at the first "00 00" boundary.
    start = bytes(data).find(b"\x00\x00")
    assert start >= 0, data.hex(" ")
    stream = bytes(data[start + 1 :])
    runs = stream.split(b"\x00")
    frames = [run for run in runs[1:-1] if run]
    assert len(frames) >= 3, stream.hex(" ")
    # Between two frames there are always two delimiters: every frame leaves as 00 ‖ f ‖ 00.
    assert all(not runs[i] or (not runs[i - 1] and not runs[i + 1]) for i in range(1, len(runs) - 1)), \
        stream.hex(" ")
    items = FrameDecoder().feed(stream)
    assert not [item for item in items if isinstance(item, ProtocolError)]
    assert all(isinstance(item, (Hello, Heartbeat)) for item in items), items


@needs_firmware_sim
def test_the_firmware_sends_kept_frames_again_on_resend(chip: Chip) -> None:
    """PROTOCOL.md 5.9 on the box firmware: RESEND brings back the asked-for heartbeats as they
    were first sent (same seq, stamp and mask), in order, and numbers not used yet give nothing."""
    fd = os.open(chip.port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        tty.setraw(fd)
        decoder = FrameDecoder()

        def read(seconds: float) -> list[Message | ProtocolError]:
            items: list[Message | ProtocolError] = []
            deadline = time.monotonic() + seconds
            while (left := deadline - time.monotonic()) > 0:
                if select.select([fd], [], [], left)[0]:
                    with contextlib.suppress(BlockingIOError):
                        items += decoder.feed(os.read(fd, 4096))
            return items

        read(0.1)  # whatever was torn by opening the port late
        beats = [m for m in read(0.4) if isinstance(m, Heartbeat)]
        assert len(beats) >= 4
        wanted = beats[-4:-1]
        os.write(fd, encode_delimited(Resend(from_seq=wanted[0].seq, count=3)))
        # The chip runs in real time in another process (slower under load): wait for the
        # repeats, with whatever new heartbeats were in flight around them.
        again: list[Heartbeat] = []
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and len([m for m in again if m.seq <= wanted[-1].seq]) < 3:
            again += [m for m in read(0.05) if isinstance(m, Heartbeat)]
        assert [m for m in again if m.seq <= beats[-1].seq] == wanted  # exactly as first sent
        newest = max(m.seq for m in again)
        os.write(fd, encode_delimited(Resend(from_seq=(newest + 100) % 0x10000, count=5)))
        assert all(m.seq > newest for m in read(0.2) if isinstance(m, Heartbeat))
    finally:
        os.close(fd)
