"""`chgk-console bench noise`: 10⁶ random bytes on the MCU line with presses interleaved.

The console's MCU session (drivers/mcu_session.py, the same code the serial link runs) is fed
what a noisy line would bring: random garbage between the device's frames (each frame sent as
the firmware must, `00 ‖ COBS(body) ‖ 00`, PROTOCOL.md 2.4), in chunks of random size as a
serial read returns them, with a heartbeat every 100 ms of device time and, each "question",
two presses on different pads 1 ms apart.  Time is stepped by hand (sans-IO), so the figures
do not depend on the machine's load.  Printed: `presses_lost` (presses sent but never handed
on; must be 0), `wrong_winners` (questions whose earliest edge handed on is not the first
pad's; must be 0), `garbage_bytes`, `bad_frames_reported`, `clock_breaks` (must be 0: noise
never passes for a broken clock), and the CPU time per MiB of line.  Asserts nothing.
"""

from __future__ import annotations

import json
import random
import sys
import time

from drivers.mcu_session import McuSession, PadEdge, StatusChanged
from firmware_proto import (
    PROTOCOL_VERSION,
    FrameDecoder,
    Heartbeat,
    Hello,
    Ping,
    Pong,
    Press,
    encode,
    encode_delimited,
)

MS = 1_000_000
T0 = 1_000_000_000_000


def run(total_bytes: int = 1_000_000, seed: int = 10) -> dict[str, float | int]:
    rng = random.Random(seed)
    session = McuSession("/dev/bench")
    now = T0
    offset_us = 987_654_321
    seq = 0

    def us(at: int) -> int:
        return (at // 1000 + offset_us) % (1 << 32)

    edges: list[PadEdge] = []
    breaks = 0
    bad = 0

    def take(out: object) -> None:
        nonlocal breaks, bad
        for item in out.inputs:  # type: ignore[attr-defined]
            if isinstance(item, PadEdge):
                edges.append(item)
            elif isinstance(item, StatusChanged) and item.state == "resyncing":
                breaks += 1
            elif type(item).__name__ == "Problem" and "Bad frame" in item.message:
                bad += 1
        for frame in out.writes:  # type: ignore[attr-defined]
            for msg in FrameDecoder().feed(frame):
                if isinstance(msg, Ping):  # answered at once, as the firmware does
                    take(session.receive(encode_delimited(Pong(msg.ping_id, us(now))), now + 200_000))

    take(session.opened(now))
    now += 200_000
    take(session.receive(encode(Hello(PROTOCOL_VERSION, 4, 1, us(now - 100_000), "bench")), now))
    take(session.on_timer(now))
    sent_presses: list[tuple[int, int]] = []  # (question, pad)
    questions = 0
    garbage = 0
    started = time.process_time()
    last_beat = now
    while garbage < total_bytes:
        stream = bytearray()
        # Garbage picked up by the idle line, then the device's frames.
        noise = rng.randbytes(rng.randrange(0, 400))
        garbage += len(noise)
        stream += noise
        now += 5 * MS
        if now - last_beat >= 100 * MS:
            stream += encode_delimited(Heartbeat(seq, us(now), 0))
            seq = (seq + 1) % (1 << 16)
            last_beat = now
        if rng.random() < 0.2:
            first, second = rng.sample(range(4), 2)
            for pad, at in ((first, now), (second, now + MS)):
                stream += encode_delimited(Press(seq, us(at), 1 << pad))
                seq = (seq + 1) % (1 << 16)
                sent_presses.append((questions, pad))
            questions += 1
            now += MS
        # Delivered in random chunks, as reads return them, each at its arrival.
        view = bytes(stream)
        while view:
            cut = rng.randrange(1, 128)
            now += 10_000
            take(session.receive(view[:cut], now))
            view = view[cut:]
        due = session.next_deadline()
        if due is not None and due <= now:
            take(session.on_timer(now))
    cpu = time.process_time() - started
    pressed = [e for e in edges if e.pressed]
    wrong = 0
    for q in range(questions):
        pair = [p for i, p in enumerate(pressed) if i // 2 == q]
        if len(pair) == 2 and min(pair, key=lambda e: e.at_ns).pads[0] != sent_presses[2 * q][1]:
            wrong += 1
    return {
        "garbage_bytes": garbage,
        "presses_sent": len(sent_presses),
        "presses_lost": len(sent_presses) - len(pressed),
        "questions": questions,
        "wrong_winners": wrong,
        "bad_frames_reported": session.stats.errors,
        "clock_breaks": breaks,
        "lost_frames": session.stats.lost_frames,
        "cpu_s_per_mib": round(cpu / (garbage / 2**20), 3),
    }


def main(total_bytes: int = 1_000_000, as_json: bool = False) -> int:
    result = run(total_bytes)
    if as_json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(as_json="--json" in sys.argv))
