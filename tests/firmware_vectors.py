"""Test vectors for the C protocol core (firmware/proto), generated from the Python codec.

``lines()`` is the whole vector file: every line is one check that ``firmware/proto/host_test``
runs against the C code (its header comment gives the syntax), and every expected value
comes from ``firmware_proto`` here, so a change on either side that the other does not
follow fails ``tests/test_firmware_c.py``.  The vectors are PROTOCOL.md's tables plus a
fixed-seed random sample (messages, COBS runs, noisy streams), so the output is stable and
``firmware/proto/vectors.txt`` (what ``make host-test`` runs) is a committed copy of it::

    .venv/bin/python -m tests.firmware_vectors > firmware/proto/vectors.txt
"""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import firmware_proto
from firmware_proto import (
    MAX_ANGLES_PER_FRAME,
    MAX_ENCODED,
    MAX_FIRMWARE_BYTES,
    Angle,
    AngleRate,
    Angles,
    FrameDecoder,
    Heartbeat,
    Hello,
    HelloRequest,
    Lamps,
    Message,
    Ping,
    Pong,
    Press,
    ProtocolError,
    Release,
    Resend,
    cobs_encode,
    crc16,
    encode,
    encode_delimited,
)

__all__ = ["error_kind", "lines", "message_text", "protocol_md_frames", "protocol_md_resync_streams"]

PROTOCOL_MD = Path(firmware_proto.__file__).with_name("PROTOCOL.md")
SEED = 20240608

_NAMES: dict[type[Message], str] = {
    Hello: "HELLO",
    Press: "PRESS",
    Release: "RELEASE",
    Heartbeat: "HEARTBEAT",
    Pong: "PONG",
    Angle: "ANGLE",
    Angles: "ANGLES",
    HelloRequest: "HELLO_REQUEST",
    Lamps: "LAMPS",
    Ping: "PING",
    Resend: "RESEND",
    AngleRate: "ANGLE_RATE",
}

# The reasons firmware_proto reports, by the kind the C decoder returns (enum proto_status).
# A reason that matches none of these is a new check on the Python side: error_kind raises.
_KINDS: tuple[tuple[str, str], ...] = (
    (r"frame longer than \d+ bytes$", "OVERLONG"),
    (r"bad COBS encoding: ", "COBS"),
    (r"frame body is \d+ bytes?, shorter than the minimum", "SHORT"),
    (r"frame body is \d+ bytes, longer than the maximum", "LONG"),
    (r"CRC mismatch: ", "CRC"),
    (r"unknown message type 0x", "TYPE"),
    (r"[A-Z_]+ payload is \d+ bytes?, expected", "LENGTH"),
    (r"HELLO firmware is not valid UTF-8", "UTF8"),
    (r"invalid [A-Z_]+: ", "VALUE"),
)


def error_kind(error: ProtocolError) -> str:
    """The C status name for a Python rejection reason."""
    for pattern, kind in _KINDS:
        if re.match(pattern, error.reason):
            return kind
    raise ValueError(f"no C error kind for the reason {error.reason!r}")


def _hex(data: bytes) -> str:
    return data.hex() or "-"


def message_text(msg: Message) -> str:
    """The host_test spelling of a message: type name, then its fields in wire order (ANGLES:
    its readings' count, then each reading's age and raw angle)."""
    fields: list[str] = [_NAMES[type(msg)]]
    if isinstance(msg, Angles):
        fields += [str(msg.seq), str(msg.timestamp_us), str(msg.status), str(len(msg.readings))]
        return " ".join(fields + [str(value) for reading in msg.readings for value in reading])
    for field in dataclasses.fields(msg):
        value = getattr(msg, field.name)
        fields.append(_hex(value.encode("utf-8")) if isinstance(value, str) else str(value))
    return " ".join(fields)


def _item_text(item: Message | ProtocolError) -> str:
    return error_kind(item) if isinstance(item, ProtocolError) else message_text(item)


def _stream(data: bytes) -> str:
    items = FrameDecoder().feed(data)
    return f"stream {_hex(data)} = " + " ; ".join(_item_text(item) for item in items)


def protocol_md_frames() -> list[bytes]:
    """Every wire frame of PROTOCOL.md's test-vector tables (valid and invalid)."""
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    frames: list[bytes] = []
    for table in ("valid", "invalid"):
        block = text.split(f"<!-- test-vectors:{table}:begin -->")[1].split(
            f"<!-- test-vectors:{table}:end -->"
        )[0]
        for row in block.splitlines():
            cells = [cell.strip().strip("`") for cell in row.strip().strip("|").split("|")]
            # The wire frame is the last cell of a valid row and the first of an invalid one.
            cell = cells[-1] if table == "valid" else cells[0]
            if re.fullmatch(r"[0-9a-f]{2}( [0-9a-f]{2})*", cell):
                frames.append(bytes.fromhex(cell))
    return frames


def protocol_md_resync_streams() -> list[bytes]:
    """Every stream of PROTOCOL.md's "garbage before a frame" table (6.3)."""
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    block = text.split("<!-- test-vectors:resync:begin -->")[1].split("<!-- test-vectors:resync:end -->")[0]
    streams: list[bytes] = []
    for row in block.splitlines():
        cells = [cell.strip().strip("`") for cell in row.strip().strip("|").split("|")]
        if len(cells) > 1 and re.fullmatch(r"[0-9a-f]{2}( [0-9a-f]{2})*", cells[1]):
            streams.append(bytes.fromhex(cells[1]))
    return streams


def _random_message(rng: random.Random) -> Message:
    def u(bits: int) -> int:
        # Extremes are where width and sign bugs hide: pick them often.
        return rng.choice([0, 1, (1 << bits) - 1, 1 << (bits - 1), rng.getrandbits(bits)])

    def pads() -> int:
        return u(16) or 1

    kind = rng.randrange(9)
    if kind == 0:
        alphabet = "abc 1.0-é€𝄞"
        firmware = ""
        while True:
            more = firmware + rng.choice(alphabet)
            if len(more.encode("utf-8")) > MAX_FIRMWARE_BYTES or rng.random() < 0.1:
                break
            firmware = more
        return Hello(u(8), rng.randint(0, 16), u(16) or 1, u(32), firmware)
    if kind == 1:
        return Press(u(16), u(32), pads())
    if kind == 2:
        return Release(u(16), u(32), pads())
    if kind == 3:
        return Heartbeat(u(16), u(32), u(16))
    if kind == 4:
        return Pong(u(16), u(32))
    if kind == 5:
        return Angle(u(16), u(32), rng.randint(0, 4095), rng.randint(0, 7))
    if kind == 6:
        return HelloRequest(u(8))
    if kind == 7:
        return Lamps(u(16), u(16))
    return Ping(u(16))


def _random_angles(rng: random.Random) -> Angles:
    count = rng.choice([1, 2, MAX_ANGLES_PER_FRAME, rng.randint(1, MAX_ANGLES_PER_FRAME)])
    ages = sorted((rng.choice([0, 0xFFFF, rng.getrandbits(16)]) for _ in range(count - 1)), reverse=True)
    readings = tuple(zip([*ages, 0], (rng.randint(0, 4095) for _ in range(count)), strict=True))
    return Angles(rng.getrandbits(16), rng.choice([0, 0xFFFF_FFFF, rng.getrandbits(32)]),
                  rng.randint(0, 7), readings)


def _angles_rejects() -> list[bytes]:
    """ANGLES frames with a correct CRC that each break one rule of PROTOCOL.md 4.11."""
    head = b"\x01\x00\x10\x27\x00\x00\x01"  # seq 1, stamp 10000, magnet detected
    return [
        _body_frame(_checked(0x07, head)),  # no reading
        _body_frame(_checked(0x07, head + b"\x00\x00\x05")),  # a reading cut short
        _body_frame(_checked(0x07, head + b"\x00\x00\x00\x10")),  # raw_angle 4096
        _body_frame(_checked(0x07, head[:6] + b"\x08" + b"\x00\x00\x05\x00")),  # reserved status bit
        _body_frame(_checked(0x07, head + b"\x0a\x00\x05\x00")),  # the last age not 0
        _body_frame(_checked(0x07, head + b"\x0a\x00\x05\x00\x0b\x00\x06\x00\x00\x00\x07\x00")),  # ages grow
        _body_frame(_checked(0x07, head + b"\x00\x00\x05\x00" * (MAX_ANGLES_PER_FRAME + 1))),  # body too long
    ]


def _body_frame(body: bytes) -> bytes:
    return cobs_encode(body) + b"\x00"


def _checked(msg_type: int, payload: bytes) -> bytes:
    head = bytes([msg_type]) + payload
    return head + crc16(head).to_bytes(2, "little")


def _hand_built_rejects(rng: random.Random) -> list[bytes]:
    """Frames with a correct CRC that each break one rule the decoder checks after it."""
    return [
        _body_frame(_checked(0x02, bytes(8))),  # PRESS naming no pad
        _body_frame(_checked(0x03, bytes(8))),  # RELEASE naming no pad
        _body_frame(_checked(0x06, bytes(7) + b"\x00\x10\x00")),  # raw_angle 4096
        _body_frame(_checked(0x06, bytes(7) + b"\x00\x00\xf8")),  # reserved status bits
        _body_frame(_checked(0x01, b"\x01\x11" + bytes(6))),  # 17 pads
        _body_frame(_checked(0x01, b"\x01\x02\x00\x00" + bytes(4))),  # resolution 0
        _body_frame(_checked(0x01, b"\x01\x02\x01\x00" + bytes(4) + b"\xed\xa0\x80")),  # surrogate
        _body_frame(_checked(0x01, b"\x01\x02\x01\x00" + bytes(4) + b"\xc0\x80")),  # overlong NUL
        _body_frame(_checked(0x01, b"\x01\x02\x01\x00" + bytes(4) + b"\xf4\x90\x80\x80")),  # > 10FFFF
        _body_frame(_checked(0x01, b"\x01\x02\x01\x00" + bytes(4) + b"\xe2\x82")),  # truncated
        _body_frame(_checked(0x01, b"\x02\x02\x01\x00" + bytes(4) + b"x" * 33)),  # 33-byte name
        _body_frame(_checked(0x01, b"\x02\x02\x01")),  # short HELLO of another version
        _body_frame(_checked(0x00, b"")),  # type 0x00 is never used
        _body_frame(_checked(0x80, b"\x01")),
        _body_frame(_checked(0x85, b"\x01\x02")),  # 0x84 is RESEND since it was added
        _body_frame(_checked(0x82, b"\x01\x02\x03")),  # LAMPS one byte short
        _body_frame(_checked(0x83, b"\x01\x02\x03")),  # PING one byte long
        _body_frame(_checked(0x81, b"")),  # HELLO_REQUEST without its version
        _body_frame(_checked(0x05, bytes(rng.randrange(60, 62)))),  # longest legal body, wrong type
        _body_frame(_checked(0x01, bytes(63))),  # body of 66 bytes: longer than the maximum
        _body_frame(b"\x02"),
        _body_frame(b"\x02\x07"),
        b"\x01\x00",  # body of one zero byte
        b"\x02\x01\x00",  # decodes to the single byte 01
        b"\x03\x01\x00",  # code byte runs past the end
        b"\xff" + bytes(range(1, 80)) + b"\x00",  # exactly MAX_ENCODED bytes, COBS error
        b"\x05" * (MAX_ENCODED + 1) + b"\x00",  # one byte over: OVERLONG
    ]


def _noisy_stream(rng: random.Random) -> bytes:
    out = bytearray()
    for _ in range(rng.randint(1, 8)):
        choice = rng.random()
        frame = encode(_random_message(rng))
        if choice < 0.5:
            out += frame
        elif choice < 0.65:  # one corrupted byte
            i = rng.randrange(len(frame))
            out += frame[:i] + bytes([rng.randrange(256)]) + frame[i + 1 :]
        elif choice < 0.75:  # a frame cut short
            out += frame[: rng.randrange(len(frame))]
        elif choice < 0.85:  # noise, maybe long enough to overflow the receiver
            out += bytes(rng.randrange(1, 256) for _ in range(rng.choice([3, 40, 79, 80, 81, 200])))
        elif choice < 0.95:  # flushes
            out += bytes(rng.randint(1, 3))
        else:
            out += frame[:-1]  # a frame without its delimiter merges with the next
    return bytes(out)


def _garbage_then_frames(rng: random.Random) -> bytes:
    """Frames as a device sends them (a 0x00 before each, PROTOCOL.md 2.4) after garbage: a
    stray byte, a burst (maybe over-long, maybe with zeros) or a frame cut short."""
    out = bytearray()
    for _ in range(rng.randint(1, 6)):
        choice = rng.random()
        if choice < 0.3:
            out.append(rng.randrange(1, 256))
        elif choice < 0.5:
            out += bytes(rng.randrange(1, 256) for _ in range(rng.choice([2, 40, 80, 81, 150])))
        elif choice < 0.6:
            out += bytes(rng.choice([0, rng.randrange(1, 256)]) for _ in range(rng.randint(2, 30)))
        elif choice < 0.8:
            frame = encode(_random_message(rng))
            out += frame[: rng.randrange(1, len(frame) - 1)]
        out += encode_delimited(_random_message(rng))
    return bytes(out)


def lines() -> list[str]:
    """The whole vector file, one check a line."""
    rng = random.Random(SEED)
    out = ["# Generated by tests/firmware_vectors.py from the Python codec; do not edit."]
    crc_data = [b"", b"123456789", b"\x00", b"\xff" * 5]
    crc_data += [rng.randbytes(rng.randint(1, 70)) for _ in range(20)]
    out += [f"crc {_hex(data)} {crc16(data):04x}" for data in crc_data]
    cobs_data = [b"\x00", b"\x00\x00", b"\x00\x11\x00", b"\x11\x22\x00\x33", b"\x11\x22\x33\x44",
                 b"\x11\x00\x00\x00", bytes(range(1, 255)), bytes(range(1, 256)),
                 bytes(range(1, 255)) + b"\x00", b"\x01" * 508, b"\x01" * 509 + b"\x00\x02"]
    for _ in range(40):
        n = rng.choice([1, 2, 10, 64, 253, 254, 255, 300])
        cobs_data.append(bytes(rng.choice([0, 0, rng.randrange(1, 256)]) if rng.random() < 0.3
                               else rng.randrange(1, 256) for _ in range(n)))
    out += [f"cobs {_hex(data)} {_hex(cobs_encode(data))}" for data in cobs_data]
    messages = [_random_message(rng) for _ in range(400)]
    out += [f"encode {message_text(msg)} = {_hex(encode(msg))}" for msg in messages]
    frames = protocol_md_frames() + _hand_built_rejects(rng) + [encode(msg) for msg in messages]
    out += [_stream(frame) for frame in frames]
    out += [_stream(_noisy_stream(rng)) for _ in range(300)]
    # Garbage before a frame sent with its leading delimiter: the C receiver, like the Python
    # one, reports the garbage and decodes the frame (PROTOCOL.md 2.5, 6.3).
    out += [_stream(stream) for stream in protocol_md_resync_streams()]
    out += [_stream(_garbage_then_frames(rng)) for _ in range(200)]
    # RESEND (PROTOCOL.md 4.10), added after the vectors above so that they stay as they were.
    resends = [Resend(0, 1), Resend(0xFFFF, 255), Resend(41, 3)]
    resends += [Resend(rng.getrandbits(16), rng.randint(1, 255)) for _ in range(20)]
    out += [f"encode {message_text(msg)} = {_hex(encode(msg))}" for msg in resends]
    out += [_stream(encode_delimited(msg)) for msg in resends]
    out += [_stream(_body_frame(_checked(0x84, b"\x07\x00\x00")))]  # count 0
    out += [_stream(_body_frame(_checked(0x84, b"\x07\x00")))]  # one byte short
    # ANGLES (PROTOCOL.md 4.11, protocol version 2), added last for the same reason.
    angles = [Angles(0, 0, 1, ((0, 0),)), Angles(0xFFFF, 0xFFFF_FFFF, 7, ((0xFFFF, 4095), (0, 0)))]
    angles += [_random_angles(rng) for _ in range(40)]
    out += [f"encode {message_text(msg)} = {_hex(encode(msg))}" for msg in angles]
    out += [_stream(encode_delimited(msg)) for msg in angles]
    out += [_stream(frame) for frame in _angles_rejects()]
    # ANGLE_RATE (PROTOCOL.md 4.12), added last for the same reason.
    rates = [AngleRate(0), AngleRate(4000), AngleRate(0xFFFF)]
    rates += [AngleRate(rng.getrandbits(16)) for _ in range(10)]
    out += [f"encode {message_text(msg)} = {_hex(encode(msg))}" for msg in rates]
    out += [_stream(encode_delimited(msg)) for msg in rates]
    out += [_stream(_body_frame(_checked(0x85, b"\xa0")))]  # one byte short
    return out


if __name__ == "__main__":
    print("\n".join(lines()))
