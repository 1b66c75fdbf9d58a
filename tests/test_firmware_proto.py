"""Tests of the MCU <-> Pi wire protocol codec (firmware_proto) and of its PROTOCOL.md vectors."""

from __future__ import annotations

import ast
import binascii
import random
import struct
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

import firmware_proto
from firmware_proto import (
    MAX_ANGLES_PER_FRAME,
    MAX_BODY,
    MAX_ENCODED,
    MAX_FIRMWARE_BYTES,
    PROTOCOL_VERSION,
    Angle,
    AngleRate,
    Angles,
    AngleStatus,
    DeviceMessage,
    FrameDecoder,
    Heartbeat,
    Hello,
    HelloRequest,
    HostMessage,
    Lamps,
    Message,
    MsgType,
    Ping,
    Pong,
    Press,
    ProtocolError,
    Release,
    Resend,
    TimestampUnwrapper,
    cobs_decode,
    cobs_encode,
    crc16,
    decode_body,
    encode,
    encode_body,
    encode_delimited,
)

Item = Message | ProtocolError

PROTOCOL_MD = Path(firmware_proto.__file__).with_name("PROTOCOL.md")

# One or more examples of every message type, including extreme field values.
EXAMPLES: list[Message] = [
    Hello(
        protocol_version=1,
        pad_count=12,
        timer_resolution_us=250,
        timestamp_us=123_456_789,
        firmware="chgk-pads 1.0.0",
    ),
    Hello(protocol_version=1, pad_count=0, timer_resolution_us=1, timestamp_us=0, firmware=""),
    Hello(
        protocol_version=255,
        pad_count=16,
        timer_resolution_us=0xFFFF,
        timestamp_us=0xFFFF_FFFF,
        firmware="é" * 16,  # exactly 32 bytes of UTF-8
    ),
    Hello(protocol_version=1, pad_count=4, timer_resolution_us=1, timestamp_us=5, firmware="a\0b"),
    Press(seq=7, timestamp_us=1_000_000, pads=0b101),
    Press(seq=0xFFFF, timestamp_us=0xFFFF_FFFF, pads=0xFFFF),
    Release(seq=8, timestamp_us=1_085_000, pads=0b100),
    Release(seq=0, timestamp_us=0, pads=1),
    Heartbeat(seq=9, timestamp_us=1_100_000, held=0b001),
    Heartbeat(seq=0, timestamp_us=0, held=0),
    Pong(ping_id=0x1234, timestamp_us=2_000_000),
    Pong(ping_id=0, timestamp_us=0),
    Angle(seq=10, timestamp_us=2_500_000, raw_angle=2048, status=0b001),
    Angle(seq=0xFFFF, timestamp_us=0, raw_angle=4095, status=0b111),
    Angles(seq=11, timestamp_us=2_510_000, status=0b001, readings=((3000, 2048), (2000, 2100), (0, 2180))),
    Angles(seq=0, timestamp_us=0xFFFF_FFFF, status=0b111, readings=((0, 4095),)),
    Angles(seq=0xFFFF, timestamp_us=7, status=0,
           readings=(*((0xFFFF - i, i) for i in range(MAX_ANGLES_PER_FRAME - 1)), (0, 0))),
    HelloRequest(protocol_version=1),
    HelloRequest(protocol_version=0),
    Lamps(on=0b101, blink=0b100),
    Lamps(on=0, blink=0xFFFF),
    Ping(ping_id=0x1234),
    Ping(ping_id=276),  # its CRC contains a zero byte
    Resend(from_seq=41, count=3),
    Resend(from_seq=0xFFFF, count=255),
    AngleRate(interval_us=4000),
    AngleRate(interval_us=0xFFFF),
]


def _ids(items: Iterable[object]) -> list[str]:
    return [repr(item)[:60] for item in items]


def _body(msg_type: int, payload: bytes) -> bytes:
    """A body with a correct CRC around an arbitrary type and payload."""
    checked = bytes([msg_type]) + payload
    return checked + struct.pack("<H", crc16(checked))


def _frame(body: bytes) -> bytes:
    return cobs_encode(body) + b"\x00"


def _messages(items: Iterable[Item]) -> list[Message]:
    return [item for item in items if not isinstance(item, ProtocolError)]


def _errors(items: Iterable[Item]) -> list[ProtocolError]:
    return [item for item in items if isinstance(item, ProtocolError)]


def _feed_bytewise(data: bytes) -> list[Item]:
    decoder = FrameDecoder()
    out: list[Item] = []
    for i in range(len(data)):
        out += decoder.feed(data[i : i + 1])
        assert decoder.buffered <= MAX_ENCODED
    return out


def _decode_one(frame: bytes) -> Item:
    items = FrameDecoder().feed(frame)
    assert len(items) == 1, items
    return items[0]


# --------------------------------------------------------------------------- CRC


def _crc_reference(data: bytes) -> int:
    """Bitwise CRC-16/CCITT-FALSE, straight from the definition."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def test_crc_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1


def test_crc_of_empty_input_is_the_initial_value() -> None:
    assert crc16(b"") == 0xFFFF


def test_crc_matches_bitwise_reference_and_crc_hqx() -> None:
    rng = random.Random(1)
    for n in range(0, 100, 7):
        data = rng.randbytes(n)
        assert crc16(data) == _crc_reference(data) == binascii.crc_hqx(data, 0xFFFF)


def test_crc_is_transmitted_little_endian() -> None:
    body = encode_body(Ping(ping_id=0x1234))
    assert body[:3] == b"\x83\x34\x12"
    assert body[3:] == _crc_reference(body[:3]).to_bytes(2, "little")


# --------------------------------------------------------------------------- COBS

COBS_VECTORS: list[tuple[bytes, bytes]] = [
    # Wikipedia's examples (the delimiter is not part of cobs_encode's output).
    (b"\x00", b"\x01\x01"),
    (b"\x00\x00", b"\x01\x01\x01"),
    (b"\x00\x11\x00", b"\x01\x02\x11\x01"),
    (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
    (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
    (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
    (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255))),
    (bytes(range(0, 255)), b"\x01\xff" + bytes(range(1, 255))),
    (bytes(range(1, 256)), b"\xff" + bytes(range(1, 255)) + b"\x02\xff"),
    (bytes(range(2, 256)) + b"\x00", b"\xff" + bytes(range(2, 256)) + b"\x01\x01"),
    (bytes(range(3, 256)) + b"\x00\x01", b"\xfe" + bytes(range(3, 256)) + b"\x02\x01"),
    # Edge cases beyond Wikipedia's list.
    (b"", b"\x01"),
    (b"\x01" * 508, b"\xff" + b"\x01" * 254 + b"\xff" + b"\x01" * 254),
    (b"\x01" * 254 + b"\x00", b"\xff" + b"\x01" * 254 + b"\x01\x01"),
]


@pytest.mark.parametrize(("data", "encoded"), COBS_VECTORS, ids=_ids(v[0] for v in COBS_VECTORS))
def test_cobs_vectors(data: bytes, encoded: bytes) -> None:
    assert cobs_encode(data) == encoded
    assert cobs_decode(encoded) == data


def test_cobs_round_trip_random() -> None:
    rng = random.Random(2)
    for _ in range(500):
        n = rng.randrange(0, 700)
        zero_rate = rng.choice([0.0, 0.01, 0.2, 0.9])
        data = bytes(0 if rng.random() < zero_rate else rng.randrange(1, 256) for _ in range(n))
        encoded = cobs_encode(data)
        assert 0 not in encoded
        assert len(encoded) <= len(data) + 1 + len(data) // 254
        assert cobs_decode(encoded) == data


def test_cobs_decode_of_a_short_frame_agrees_with_the_general_decoder() -> None:
    # Frames under 255 bytes take a shortcut (the protocol's own); on any bytes at all, valid
    # or not, it gives what the general decoder gives: the same data or the same error.
    from firmware_proto.framing import _cobs_decode_general

    def outcome(decode: Callable[[bytes], bytes], encoded: bytes) -> bytes | str:
        try:
            return decode(encoded)
        except ValueError as exc:
            return str(exc)

    rng = random.Random(5)
    for _ in range(3000):
        n = rng.randrange(1, 300)
        encoded = bytes(rng.choice((rng.randrange(1, 16), rng.randrange(0, 256))) for _ in range(n))
        assert outcome(cobs_decode, encoded) == outcome(_cobs_decode_general, encoded)


def test_cobs_decode_accepts_a_redundant_trailing_code() -> None:
    # Non-canonical but unambiguous: a full 0xFF run followed by an empty final run.
    assert cobs_decode(b"\xff" + b"\x01" * 254 + b"\x01") == b"\x01" * 254


@pytest.mark.parametrize(
    ("encoded", "reason"),
    [
        (b"\x05\x11\x22", "code byte 0x05 at offset 0 runs past the end (3 bytes)"),
        (b"\x02\x11\x03\x22", "code byte 0x03 at offset 2 runs past the end (4 bytes)"),
        (b"\x00\x11", "zero byte at offset 0"),
        (b"\x03\x11\x00", "zero byte at offset 2"),
    ],
)
def test_cobs_decode_rejects_invalid_input(encoded: bytes, reason: str) -> None:
    with pytest.raises(ValueError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        cobs_decode(encoded)


# --------------------------------------------------------------------------- encoding


@pytest.mark.parametrize("msg", EXAMPLES, ids=_ids(EXAMPLES))
def test_round_trip(msg: Message) -> None:
    frame = encode(msg)
    assert frame.endswith(b"\x00")
    assert frame.count(0) == 1, "COBS must leave the delimiter as the only zero"
    body = encode_body(msg)
    assert len(body) <= MAX_BODY
    assert len(frame) == len(body) + 2  # one COBS code byte (body < 254) + delimiter
    assert cobs_decode(frame[:-1]) == body
    assert decode_body(body) == msg
    assert FrameDecoder().feed(frame) == [msg]
    assert _feed_bytewise(frame) == [msg]


@pytest.mark.parametrize("msg", EXAMPLES, ids=_ids(EXAMPLES))
def test_type_byte_and_direction(msg: Message) -> None:
    msg_type = MsgType(encode_body(msg)[0])
    assert type(msg).__name__.upper() == msg_type.name.replace("_", "")
    host_to_device = bool(msg_type & 0x80)
    assert host_to_device == isinstance(msg, HostMessage)
    assert host_to_device != isinstance(msg, DeviceMessage)


def test_message_type_codes_are_the_specified_ones() -> None:
    assert {t.name: int(t) for t in MsgType} == {
        "HELLO": 0x01,
        "PRESS": 0x02,
        "RELEASE": 0x03,
        "HEARTBEAT": 0x04,
        "PONG": 0x05,
        "ANGLE": 0x06,
        "ANGLES": 0x07,
        "HELLO_REQUEST": 0x81,
        "LAMPS": 0x82,
        "PING": 0x83,
        "RESEND": 0x84,
        "ANGLE_RATE": 0x85,
    }
    assert PROTOCOL_VERSION == 2  # 2: ANGLES


def test_longest_hello_fits_max_body_with_room() -> None:
    longest = Hello(
        protocol_version=1,
        pad_count=16,
        timer_resolution_us=1,
        timestamp_us=0,
        firmware="x" * MAX_FIRMWARE_BYTES,
    )
    assert len(encode_body(longest)) == 43 < MAX_BODY
    assert len(encode(longest)) == 45


def test_encode_rejects_non_messages() -> None:
    with pytest.raises(TypeError, match="not a protocol message"):
        encode(ProtocolError("x", b""))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- stream decoding


def _stream(msgs: Iterable[Message]) -> bytes:
    return b"".join(encode(m) for m in msgs)


def test_several_frames_in_one_chunk() -> None:
    assert FrameDecoder().feed(_stream(EXAMPLES)) == EXAMPLES


def test_frames_fed_one_byte_at_a_time() -> None:
    assert _feed_bytewise(_stream(EXAMPLES)) == EXAMPLES


def test_frames_fed_in_random_chunks() -> None:
    data = _stream(EXAMPLES)
    rng = random.Random(3)
    for _ in range(50):
        decoder = FrameDecoder()
        out: list[Item] = []
        pos = 0
        while pos < len(data):
            step = rng.randrange(1, 40)
            out += decoder.feed(data[pos : pos + step])
            pos += step
        assert out == EXAMPLES
        assert decoder.buffered == 0


def test_feed_accepts_bytearray_and_memoryview() -> None:
    frame = encode(EXAMPLES[4])
    assert FrameDecoder().feed(bytearray(frame)) == [EXAMPLES[4]]
    assert FrameDecoder().feed(memoryview(frame)) == [EXAMPLES[4]]


def test_buffered_counts_bytes_waiting_for_a_delimiter() -> None:
    frame = encode(Press(seq=1, timestamp_us=2, pads=3))
    decoder = FrameDecoder()
    assert decoder.buffered == 0
    assert decoder.feed(frame[:5]) == []
    assert decoder.buffered == 5
    assert decoder.feed(frame[5:-1]) == []
    assert decoder.buffered == len(frame) - 1
    assert decoder.feed(frame[-1:]) == [Press(seq=1, timestamp_us=2, pads=3)]
    assert decoder.buffered == 0


def test_reset_drops_a_partial_frame() -> None:
    frame = encode(Ping(ping_id=1))
    decoder = FrameDecoder()
    decoder.feed(frame[:3])
    decoder.reset()
    assert decoder.buffered == 0
    assert decoder.feed(frame) == [Ping(ping_id=1)]


def test_empty_frames_are_skipped_silently() -> None:
    msg = Heartbeat(seq=1, timestamp_us=2, held=0)
    decoder = FrameDecoder()
    assert decoder.feed(b"\x00\x00\x00") == []
    assert decoder.feed(b"\x00" + encode(msg) + b"\x00\x00" + encode(msg)) == [msg, msg]
    assert decoder.buffered == 0


def test_garbage_before_and_between_frames_is_reported_and_skipped() -> None:
    a = Press(seq=1, timestamp_us=100, pads=0b10)
    b = Heartbeat(seq=2, timestamp_us=200, held=0b10)
    data = (
        b"\x13\x37\x42\x00"  # noise, then a delimiter (e.g. the sender's flush byte)
        + encode(a)
        + b"\xff\xfe\x00\x00\x99\x00"  # noise with stray zeros
        + encode(b)
    )
    for items in (FrameDecoder().feed(data), _feed_bytewise(data)):
        assert _messages(items) == [a, b]
        errors = _errors(items)
        assert [e.raw for e in errors] == [b"\x13\x37\x42", b"\xff\xfe", b"\x99"]
        # Noise is in stream order with the messages.
        assert isinstance(items[0], ProtocolError)
        assert items[-1] == b


def test_noise_glued_to_a_frame_costs_that_frame_only() -> None:
    # Without a delimiter between them, noise and the next frame are one frame to COBS;
    # the damage ends at that frame's delimiter.
    a = Press(seq=1, timestamp_us=100, pads=1)
    b = Press(seq=2, timestamp_us=200, pads=2)
    items = FrameDecoder().feed(b"\x55\x66" + encode(a) + encode(b))
    assert len(items) == 2
    assert isinstance(items[0], ProtocolError)
    assert items[1] == b


def test_corrupted_crc_is_reported_with_both_values() -> None:
    body = bytearray(encode_body(Ping(ping_id=0x1234)))
    good = int.from_bytes(body[-2:], "little")
    bad = good ^ 0x0100
    body[-2:] = bad.to_bytes(2, "little")
    after = Ping(ping_id=0x1235)
    items = FrameDecoder().feed(encode(Ping(ping_id=1)) + _frame(bytes(body)) + encode(after))
    assert items[0] == Ping(ping_id=1)
    assert items[2] == after
    error = items[1]
    assert isinstance(error, ProtocolError)
    assert error.reason == f"CRC mismatch: got 0x{bad:04X}, computed 0x{good:04X}"
    assert error.raw == cobs_encode(bytes(body))  # the bytes as received, no delimiter


@pytest.mark.parametrize("msg", EXAMPLES[:1] + EXAMPLES[4:5] + EXAMPLES[12:13])
def test_single_bit_errors_never_produce_a_message(msg: Message) -> None:
    frame = encode(msg)
    after = Heartbeat(seq=3, timestamp_us=4, held=5)
    for pos in range(len(frame) - 1):
        for bit in range(8):
            damaged = bytearray(frame)
            damaged[pos] ^= 1 << bit
            items = FrameDecoder().feed(b"\x00" + bytes(damaged) + encode(after))
            assert items[-1] == after, (pos, bit)
            assert _messages(items) == [after], (pos, bit)


def test_truncated_frames_are_reported_and_the_next_frame_decodes() -> None:
    msg = Angle(seq=1, timestamp_us=0x01020304, raw_angle=1000, status=1)
    frame = encode(msg)
    after = Pong(ping_id=9, timestamp_us=10)
    for cut in range(1, len(frame) - 1):
        # The tail of the frame is lost; the receiver sees the next delimiter.
        items = FrameDecoder().feed(frame[:cut] + b"\x00" + encode(after))
        assert len(items) == 2, cut
        error = items[0]
        assert isinstance(error, ProtocolError), cut
        assert error.reason.startswith(("bad COBS encoding", "CRC mismatch", "frame body is")), error.reason
        assert items[1] == after


def test_body_shorter_than_type_and_crc() -> None:
    for body in (b"\x02", b"\x02\x03"):
        error = _decode_one(_frame(body))
        assert isinstance(error, ProtocolError)
        assert "shorter than the minimum 3" in error.reason
    assert decode_body(b"") == ProtocolError(
        "frame body is 0 bytes, shorter than the minimum 3 (type + CRC)", b""
    )


@pytest.mark.parametrize(
    "msg_type", [t for t in range(256) if t not in set(MsgType)], ids=lambda t: f"0x{t:02X}"
)
def test_unknown_type(msg_type: int) -> None:
    after = Ping(ping_id=3)
    items = FrameDecoder().feed(_frame(_body(msg_type, b"\x01\x02\x03")) + encode(after))
    assert items[0] == ProtocolError(
        f"unknown message type 0x{msg_type:02X}", cobs_encode(_body(msg_type, b"\x01\x02\x03"))
    )
    assert items[1] == after


FIXED_PAYLOAD_SIZES = {
    MsgType.PRESS: 8,
    MsgType.RELEASE: 8,
    MsgType.HEARTBEAT: 8,
    MsgType.PONG: 6,
    MsgType.ANGLE: 9,
    MsgType.HELLO_REQUEST: 1,
    MsgType.LAMPS: 4,
    MsgType.PING: 2,
}


@pytest.mark.parametrize("msg_type", list(FIXED_PAYLOAD_SIZES), ids=lambda t: t.name)
def test_wrong_payload_length(msg_type: MsgType) -> None:
    size = FIXED_PAYLOAD_SIZES[msg_type]
    for n in {0, 1, size - 1, size + 1, size + 10} - {size}:
        payload = b"\x01" * n
        item = _decode_one(_frame(_body(msg_type, payload)))
        noun = "byte" if n == 1 else "bytes"
        expected = f"{msg_type.name} payload is {n} {noun}, expected {size}"
        assert item == ProtocolError(expected, cobs_encode(_body(msg_type, payload)))


def test_press_payload_length_reason_reads_as_specified() -> None:
    item = decode_body(_body(MsgType.PRESS, b"\x07\x00\x40"))
    assert isinstance(item, ProtocolError)
    assert item.reason == "PRESS payload is 3 bytes, expected 8"


def test_hello_payload_length_is_a_range() -> None:
    fixed = struct.pack("<BBHI", PROTOCOL_VERSION, 4, 1, 0)
    assert isinstance(decode_body(_body(MsgType.HELLO, fixed)), Hello)
    assert isinstance(decode_body(_body(MsgType.HELLO, fixed + b"v" * 32)), Hello)
    too_long = decode_body(_body(MsgType.HELLO, fixed + b"v" * 33))
    assert too_long == ProtocolError(
        "HELLO payload is 41 bytes, expected 8..40", _body(MsgType.HELLO, fixed + b"v" * 33)
    )
    too_short = decode_body(_body(MsgType.HELLO, fixed[:7]))
    assert isinstance(too_short, ProtocolError)
    assert too_short.reason == "HELLO payload is 7 bytes, expected 8..40"


def test_hello_of_another_version_is_named_even_if_it_does_not_fit() -> None:
    item = decode_body(_body(MsgType.HELLO, bytes([PROTOCOL_VERSION + 1]) + b"\x07" * 50))
    assert isinstance(item, ProtocolError)
    assert f"device speaks protocol version {PROTOCOL_VERSION + 1}, host {PROTOCOL_VERSION}" in item.reason


def test_hello_of_another_version_that_fits_decodes_for_the_host_to_refuse() -> None:
    msg = Hello(protocol_version=PROTOCOL_VERSION + 1, pad_count=1, timer_resolution_us=1, timestamp_us=0,
                firmware="")
    assert decode_body(encode_body(msg)) == msg


@pytest.mark.parametrize(
    ("msg_type", "payload", "reason"),
    [
        (MsgType.PRESS, struct.pack("<HIH", 1, 2, 0), "invalid PRESS: pads must name at least one pad"),
        (MsgType.RELEASE, struct.pack("<HIH", 1, 2, 0), "invalid RELEASE: pads must name at least"),
        (MsgType.ANGLE, struct.pack("<HIHB", 1, 2, 4096, 1), "invalid ANGLE: raw_angle must be 0..4095"),
        (MsgType.ANGLE, struct.pack("<HIHB", 1, 2, 7, 0x80), "invalid ANGLE: status must use only bits"),
        (MsgType.HELLO, struct.pack("<BBHI", 1, 17, 1, 0), "invalid HELLO: pad_count must be 0..16"),
        (MsgType.HELLO, struct.pack("<BBHI", 1, 1, 0, 0), "invalid HELLO: timer_resolution_us must"),
        (MsgType.HELLO, struct.pack("<BBHI", 1, 1, 1, 0) + b"\xc3", "HELLO firmware is not valid UTF-8"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_out_of_range_fields_on_the_wire(msg_type: MsgType, payload: bytes, reason: str) -> None:
    item = decode_body(_body(msg_type, payload))
    assert isinstance(item, ProtocolError)
    assert item.reason.startswith(reason), item.reason


def test_over_long_frame_is_reported_once_and_not_buffered() -> None:
    rng = random.Random(4)
    noise = bytes(rng.randrange(1, 256) for _ in range(300))
    msg = Press(seq=5, timestamp_us=6, pads=7)
    data = noise + b"\x00" + encode(msg)
    for items in (FrameDecoder().feed(data), _feed_bytewise(data)):
        assert items == [ProtocolError(f"frame longer than {MAX_ENCODED} bytes", noise[:80]), msg]


def test_over_long_frame_in_one_huge_chunk() -> None:
    decoder = FrameDecoder()
    items = decoder.feed(b"\x01" * 1_000_000)
    assert items == [ProtocolError("frame longer than 80 bytes", b"\x01" * 80)]
    assert decoder.buffered == 0
    assert decoder.feed(b"\x01" * 1000) == []  # still inside the same over-long frame
    msg = Ping(ping_id=1)
    assert decoder.feed(b"\x00" + encode(msg)) == [msg]


def test_max_encoded_boundary() -> None:
    # Exactly MAX_ENCODED bytes are still a frame (here: valid COBS, but a body too long).
    at_limit = _decode_one(b"\x50" + b"\x01" * 79 + b"\x00")
    assert isinstance(at_limit, ProtocolError)
    assert at_limit.reason == "frame body is 79 bytes, longer than the maximum 64"
    over = _decode_one(b"\x50" + b"\x01" * 80 + b"\x00")
    assert over == ProtocolError("frame longer than 80 bytes", b"\x50" + b"\x01" * 79)


def test_body_longer_than_max_body_with_a_valid_crc() -> None:
    body = _body(MsgType.HELLO, b"\x01" * (MAX_BODY - 2))
    assert len(body) == MAX_BODY + 1
    assert len(cobs_encode(body)) <= MAX_ENCODED
    item = _decode_one(_frame(body))
    assert isinstance(item, ProtocolError)
    assert item.reason == "frame body is 65 bytes, longer than the maximum 64"


def test_decode_body_caps_raw() -> None:
    item = decode_body(b"\x01" * 1000)
    assert isinstance(item, ProtocolError)
    assert item.raw == b"\x01" * MAX_ENCODED


def test_decode_body_never_raises_and_accepts_only_canonical_bodies() -> None:
    rng = random.Random(5)
    decoded = 0
    for i in range(20_000):
        if i % 2:
            # Valid CRC around random bytes: exercises type, length and field checks.
            body = _body(rng.choice(list(MsgType)), rng.randbytes(rng.randrange(0, 12)))
        else:
            body = rng.randbytes(rng.randrange(0, 70))
        item = decode_body(body)
        if isinstance(item, ProtocolError):
            assert item.reason
            assert len(item.raw) <= MAX_ENCODED
        else:
            decoded += 1
            assert encode_body(item) == body  # one body per message: no hidden slack
    assert decoded > 100


def test_random_bytes_never_break_the_decoder() -> None:
    rng = random.Random(6)
    decoder = FrameDecoder()
    for _ in range(2000):
        chunk = rng.randbytes(rng.randrange(0, 200))
        for item in decoder.feed(chunk):
            if isinstance(item, ProtocolError):
                assert 0 < len(item.raw) <= MAX_ENCODED
        assert decoder.buffered <= MAX_ENCODED


def _random_message(rng: random.Random) -> Message:
    u16 = rng.randrange(1 << 16)
    u32 = rng.randrange(1 << 32)
    mask = rng.randrange(1, 1 << 16)
    makers: list[Callable[[], Message]] = [
        lambda: Hello(
            protocol_version=rng.randrange(256),
            pad_count=rng.randrange(17),
            timer_resolution_us=rng.randrange(1, 1 << 16),
            timestamp_us=u32,
            firmware="".join(rng.choice("abc.-+ é0") for _ in range(rng.randrange(16))),
        ),
        lambda: Press(seq=u16, timestamp_us=u32, pads=mask),
        lambda: Release(seq=u16, timestamp_us=u32, pads=mask),
        lambda: Heartbeat(seq=u16, timestamp_us=u32, held=mask - 1),
        lambda: Pong(ping_id=u16, timestamp_us=u32),
        lambda: Angle(seq=u16, timestamp_us=u32, raw_angle=rng.randrange(4096), status=rng.randrange(8)),
        lambda: HelloRequest(protocol_version=rng.randrange(256)),
        lambda: Lamps(on=mask, blink=rng.randrange(1 << 16)),
        lambda: Ping(ping_id=u16),
        lambda: Resend(from_seq=u16, count=rng.randrange(1, 256)),
    ]
    return rng.choice(makers)()


def _noise(rng: random.Random) -> bytes:
    zero_rate = rng.choice([0.0, 0.05, 0.5])
    n = rng.randrange(1, 200)
    return bytes(0 if rng.random() < zero_rate else rng.randrange(1, 256) for _ in range(n))


def _feed_in_random_chunks(rng: random.Random, data: bytes) -> list[Item]:
    decoder = FrameDecoder()
    out: list[Item] = []
    pos = 0
    while pos < len(data):
        step = rng.choice([1, 2, 3, 7, 13, 64, 500])
        out += decoder.feed(data[pos : pos + step])
        pos += step
        assert decoder.buffered <= MAX_ENCODED
    return out


@pytest.mark.parametrize("seed", range(20))
def test_property_valid_frames_survive_delimited_noise(seed: int) -> None:
    rng = random.Random(seed)
    sent: list[Message] = []
    parts: list[bytes] = []
    noise_bursts = 0
    for _ in range(200):
        if rng.random() < 0.3:
            # Noise, then the flush byte a sender may put before a frame.
            parts.append(_noise(rng) + b"\x00")
            noise_bursts += 1
        msg = _random_message(rng)
        sent.append(msg)
        parts.append(encode(msg))
    items = _feed_in_random_chunks(rng, b"".join(parts))
    assert _messages(items) == sent
    errors = _errors(items)
    assert noise_bursts > 0
    assert errors, "noise must be reported"
    for error in errors:
        assert error.reason
        assert 0 < len(error.raw) <= MAX_ENCODED


@pytest.mark.parametrize("seed", range(10))
def test_property_glued_noise_costs_at_most_the_frame_it_touches(seed: int) -> None:
    rng = random.Random(1000 + seed)
    intact: list[Message] = []
    parts: list[bytes] = []
    for _ in range(200):
        msg = _random_message(rng)
        if rng.random() < 0.2:
            glued = bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 30)))
            parts.append(glued + encode(msg))  # no delimiter: this frame is damaged
        else:
            intact.append(msg)
            parts.append(encode(msg))
    items = _feed_in_random_chunks(rng, b"".join(parts))
    assert _messages(items) == intact


# --------------------------------------------------------------------------- field validation

VALIDATION_CASES: list[tuple[Callable[[], object], str]] = [
    (lambda: Press(seq=-1, timestamp_us=0, pads=1), "seq must fit in 16 bits"),
    (lambda: Press(seq=1 << 16, timestamp_us=0, pads=1), "seq must fit in 16 bits"),
    (lambda: Press(seq=0, timestamp_us=1 << 32, pads=1), "timestamp_us must fit in 32 bits"),
    (lambda: Press(seq=0, timestamp_us=-1, pads=1), "timestamp_us must fit in 32 bits"),
    (lambda: Press(seq=0, timestamp_us=0, pads=1 << 16), "pads must fit in 16 bits"),
    (lambda: Press(seq=0, timestamp_us=0, pads=0), "pads must name at least one pad"),
    (lambda: Release(seq=0, timestamp_us=0, pads=0), "pads must name at least one pad"),
    (lambda: Release(seq=0, timestamp_us=0, pads=-1), "pads must fit in 16 bits"),
    (lambda: Heartbeat(seq=0, timestamp_us=0, held=1 << 16), "held must fit in 16 bits"),
    (lambda: Heartbeat(seq=1 << 16, timestamp_us=0, held=0), "seq must fit in 16 bits"),
    (lambda: Pong(ping_id=1 << 16, timestamp_us=0), "ping_id must fit in 16 bits"),
    (lambda: Pong(ping_id=0, timestamp_us=1 << 32), "timestamp_us must fit in 32 bits"),
    (lambda: Angle(seq=0, timestamp_us=0, raw_angle=4096, status=1), "raw_angle must be 0..4095"),
    (lambda: Angle(seq=0, timestamp_us=0, raw_angle=-1, status=1), "raw_angle must be 0..4095"),
    (lambda: Angle(seq=0, timestamp_us=0, raw_angle=0, status=8), "status must use only bits"),
    (lambda: Angle(seq=0, timestamp_us=0, raw_angle=0, status=256), "status must fit in 8 bits"),
    (lambda: Angles(seq=0, timestamp_us=0, status=1, readings=()), "readings must be 1..13"),
    (lambda: Angles(seq=0, timestamp_us=0, status=1, readings=((0, 1),) * 14), "readings must be 1..13"),
    (lambda: Angles(seq=0, timestamp_us=0, status=1, readings=((0, 4096),)), "raw_angle must be 0..4095"),
    (lambda: Angles(seq=0, timestamp_us=0, status=8, readings=((0, 1),)), "status must use only bits"),
    (lambda: Angles(seq=0, timestamp_us=0, status=1, readings=((1 << 16, 1), (0, 1))),
     "age_us must fit in 16 bits"),
    (lambda: Angles(seq=0, timestamp_us=0, status=1, readings=((5, 1), (6, 1), (0, 1))),
     "ages must not grow"),
    (lambda: Angles(seq=0, timestamp_us=0, status=1, readings=((5, 1),)), "the last reading's age must be 0"),
    (
        lambda: Hello(protocol_version=256, pad_count=1, timer_resolution_us=1, timestamp_us=0, firmware=""),
        "protocol_version must fit in 8 bits",
    ),
    (
        lambda: Hello(protocol_version=1, pad_count=17, timer_resolution_us=1, timestamp_us=0, firmware=""),
        "pad_count must be 0..16",
    ),
    (
        lambda: Hello(protocol_version=1, pad_count=1, timer_resolution_us=0, timestamp_us=0, firmware=""),
        "timer_resolution_us must be 1..65535",
    ),
    (
        lambda: Hello(protocol_version=1, pad_count=1, timer_resolution_us=1, timestamp_us=-1, firmware=""),
        "timestamp_us must fit in 32 bits",
    ),
    (
        lambda: Hello(
            protocol_version=1, pad_count=1, timer_resolution_us=1, timestamp_us=0, firmware="x" * 33
        ),
        "firmware must be at most 32 bytes of UTF-8, got 33",
    ),
    (
        lambda: Hello(
            protocol_version=1, pad_count=1, timer_resolution_us=1, timestamp_us=0, firmware="é" * 17
        ),
        "firmware must be at most 32 bytes of UTF-8, got 34",
    ),
    (
        lambda: Hello(
            protocol_version=1, pad_count=1, timer_resolution_us=1, timestamp_us=0, firmware="\ud800"
        ),
        "firmware must be encodable as UTF-8",
    ),
    (lambda: HelloRequest(protocol_version=-1), "protocol_version must fit in 8 bits"),
    (lambda: Lamps(on=1 << 16, blink=0), "on must fit in 16 bits"),
    (lambda: Lamps(on=0, blink=-1), "blink must fit in 16 bits"),
    (lambda: Ping(ping_id=1 << 16), "ping_id must fit in 16 bits"),
    (lambda: Resend(from_seq=1 << 16, count=1), "from_seq must fit in 16 bits"),
    (lambda: Resend(from_seq=0, count=256), "count must fit in 8 bits"),
    (lambda: Resend(from_seq=0, count=0), "count must be at least 1, got 0"),
]


@pytest.mark.parametrize(("make", "reason"), VALIDATION_CASES, ids=[c[1] for c in VALIDATION_CASES])
def test_field_range_validation(make: Callable[[], object], reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        make()


def test_field_type_validation() -> None:
    with pytest.raises(TypeError, match="seq must be an int, got bool"):
        Press(seq=True, timestamp_us=0, pads=1)
    with pytest.raises(TypeError, match="timestamp_us must be an int, got float"):
        Pong(ping_id=0, timestamp_us=1.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="firmware must be a str, got bytes"):
        Hello(
            protocol_version=1,
            pad_count=1,
            timer_resolution_us=1,
            timestamp_us=0,
            firmware=b"x",  # type: ignore[arg-type]
        )


def test_records_are_frozen() -> None:
    msg = Press(seq=1, timestamp_us=2, pads=3)
    with pytest.raises(AttributeError):
        msg.seq = 5  # type: ignore[misc]


def test_pad_indices() -> None:
    assert Press(seq=0, timestamp_us=0, pads=0b1010_0000_0000_0001).pad_indices == (0, 13, 15)
    assert Release(seq=0, timestamp_us=0, pads=0b100).pad_indices == (2,)
    assert Press(seq=0, timestamp_us=0, pads=0xFFFF).pad_indices == tuple(range(16))
    assert Heartbeat(seq=0, timestamp_us=0, held=0).held_indices == ()
    assert Heartbeat(seq=0, timestamp_us=0, held=0b110).held_indices == (1, 2)


def test_the_fullest_angles_frame_fits_max_body() -> None:
    """PROTOCOL.md 4.11: 13 readings are a 62-byte body, within MAX_BODY (one COBS block)."""
    fullest = Angles(seq=1, timestamp_us=2, status=1, readings=((0, 4095),) * MAX_ANGLES_PER_FRAME)
    assert len(encode_body(fullest)) == 62 <= MAX_BODY
    assert FrameDecoder().feed(encode(fullest)) == [fullest]


@pytest.mark.parametrize(("payload", "reason"), [
    (bytes(7), "ANGLES payload is 7 bytes, expected 11..59"),
    (bytes(12), "ANGLES payload is 12 bytes, expected 11..59"),
    (bytes(7) + b"\x00\x00\x00\x10", "invalid ANGLES: raw_angle must be 0..4095"),
    (bytes(7) + b"\x01\x00\x00\x00", "invalid ANGLES: the last reading's age must be 0"),
])
def test_a_bad_angles_payload_is_named(payload: bytes, reason: str) -> None:
    error = _decode_one(_frame(_body(0x07, payload)))
    assert isinstance(error, ProtocolError)
    assert error.reason.startswith(reason), error.reason


def test_angle_helpers() -> None:
    angle = Angle(seq=0, timestamp_us=0, raw_angle=1024, status=0b011)
    assert angle.degrees == 90.0
    assert angle.flags == AngleStatus.MAGNET_DETECTED | AngleStatus.MAGNET_TOO_WEAK
    assert AngleStatus.MAGNET_TOO_STRONG not in angle.flags


# --------------------------------------------------------------------------- timestamps

WRAP = 1 << 32


def test_unwrap_first_stamp_is_taken_as_is() -> None:
    assert TimestampUnwrapper().unwrap(123) == 123
    assert TimestampUnwrapper().unwrap(WRAP - 1) == WRAP - 1
    unwrapper = TimestampUnwrapper()
    assert unwrapper.last is None
    unwrapper.unwrap(7)
    assert unwrapper.last == 7


def test_unwrap_forward_without_wrap() -> None:
    unwrapper = TimestampUnwrapper()
    assert [unwrapper.unwrap(s) for s in (0, 10, 100_000, 2_000_000_000)] == [
        0,
        10,
        100_000,
        2_000_000_000,
    ]


def test_unwrap_across_the_wrap() -> None:
    unwrapper = TimestampUnwrapper()
    assert unwrapper.unwrap(WRAP - 1000) == WRAP - 1000
    assert unwrapper.unwrap(500) == WRAP + 500
    assert unwrapper.unwrap(100_000) == WRAP + 100_000


def test_unwrap_small_backward_steps_land_just_before() -> None:
    unwrapper = TimestampUnwrapper()
    assert unwrapper.unwrap(1000) == 1000
    assert unwrapper.unwrap(2000) == 2000
    assert unwrapper.unwrap(1500) == 1500  # e.g. a PRESS handled after a later HEARTBEAT
    assert unwrapper.unwrap(2500) == 2500


def test_unwrap_backward_step_across_the_wrap() -> None:
    unwrapper = TimestampUnwrapper()
    assert unwrapper.unwrap(WRAP - 100) == WRAP - 100
    assert unwrapper.unwrap(50) == WRAP + 50
    assert unwrapper.unwrap(WRAP - 10) == WRAP - 10  # older, stamped before the wrap
    assert unwrapper.unwrap(100) == WRAP + 100


def test_unwrap_over_several_wraps_with_jitter() -> None:
    rng = random.Random(7)
    unwrapper = TimestampUnwrapper()
    latest = WRAP - 5_000_000  # start close to a wrap; below 2**32, so taken as is
    for _ in range(30_000):
        latest += rng.randrange(0, 2_000_000)
        # Sometimes a stamp a little older than the newest one arrives.
        true_us = latest - rng.randrange(0, 50_000) if rng.random() < 0.2 else latest
        assert unwrapper.unwrap(true_us % WRAP) == true_us
    assert latest > 5 * WRAP  # several wraps were crossed


def test_unwrap_large_forward_steps_below_half_the_range() -> None:
    unwrapper = TimestampUnwrapper()
    true_us = 0
    for _ in range(12):  # three wraps in steps just under 2**31 ... and exactly 2**30
        unwrapper.unwrap(true_us % WRAP)
        true_us += (1 << 31) - 1
        assert unwrapper.unwrap(true_us % WRAP) == true_us
        true_us += 1 << 30


def test_unwrap_exactly_half_the_range_counts_as_backward() -> None:
    unwrapper = TimestampUnwrapper()
    unwrapper.unwrap(0)
    assert unwrapper.unwrap(1 << 31) == -(1 << 31)


def test_unwrap_may_go_below_zero() -> None:
    unwrapper = TimestampUnwrapper()
    assert unwrapper.unwrap(10) == 10
    assert unwrapper.unwrap(WRAP - 10) == -10


def test_unwrap_reset_starts_afresh() -> None:
    unwrapper = TimestampUnwrapper()
    unwrapper.unwrap(WRAP - 1)
    unwrapper.unwrap(5)
    unwrapper.reset()
    assert unwrapper.last is None
    assert unwrapper.unwrap(5) == 5


@pytest.mark.parametrize("stamp", [-1, WRAP])
def test_unwrap_rejects_values_outside_u32(stamp: int) -> None:
    with pytest.raises(ValueError, match="stamp_us must fit in 32 bits"):
        TimestampUnwrapper().unwrap(stamp)


# --------------------------------------------------------------------------- PROTOCOL.md vectors

_RECORDS: dict[str, Callable[..., Message]] = {
    cls.__name__: cls
    for cls in (Hello, Press, Release, Heartbeat, Pong, Angle, Angles, HelloRequest, Lamps, Ping, Resend,
                AngleRate)
}


def _vector_table(name: str) -> list[list[str]]:
    """Cells of the rows between the ``test-vectors:<name>`` markers, header row excluded."""
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    begin = f"<!-- test-vectors:{name}:begin -->"
    end = f"<!-- test-vectors:{name}:end -->"
    assert text.count(begin) == 1, f"PROTOCOL.md needs exactly one {begin}"
    assert text.count(end) == 1, f"PROTOCOL.md needs exactly one {end}"
    section = text.split(begin, 1)[1].split(end, 1)[0]
    rows: list[list[str]] = []
    for line in section.splitlines():
        line = line.strip()
        if not line:
            continue
        assert line.startswith("|") and line.endswith("|"), f"not a table row: {line!r}"
        cells = [cell.strip().strip("`").strip() for cell in line[1:-1].split("|")]
        if all(cell and set(cell) <= set("-: ") for cell in cells):
            continue  # the |---|---| separator
        rows.append(cells)
    assert len(rows) >= 2, f"table {name} is empty"
    return rows[1:]


def _parse_message(source: str) -> Message:
    """Build a record from ``Name(field=literal, ...)`` without eval."""
    node = ast.parse(source, mode="eval").body
    assert isinstance(node, ast.Call), source
    assert isinstance(node.func, ast.Name), source
    assert not node.args, f"use keyword arguments: {source}"
    kwargs: dict[str, Any] = {}
    for keyword in node.keywords:
        assert keyword.arg is not None, source
        kwargs[keyword.arg] = ast.literal_eval(keyword.value)
    return _RECORDS[node.func.id](**kwargs)


def _hex(cell: str) -> bytes:
    return bytes.fromhex(cell)


VALID_VECTORS = _vector_table("valid")
INVALID_VECTORS = _vector_table("invalid")


@pytest.mark.parametrize("row", VALID_VECTORS, ids=[row[1] for row in VALID_VECTORS])
def test_protocol_md_valid_vector(row: list[str]) -> None:
    type_name, source, body_hex, wire_hex = row
    msg = _parse_message(source)
    assert MsgType[type_name] == MsgType(encode_body(msg)[0])
    assert encode_body(msg).hex(" ") == _hex(body_hex).hex(" ")
    assert encode(msg).hex(" ") == _hex(wire_hex).hex(" ")
    assert FrameDecoder().feed(_hex(wire_hex)) == [msg]
    assert decode_body(_hex(body_hex)) == msg


def test_protocol_md_covers_every_message_type() -> None:
    assert {MsgType[row[0]] for row in VALID_VECTORS} == set(MsgType)


@pytest.mark.parametrize("row", INVALID_VECTORS, ids=[row[1] for row in INVALID_VECTORS])
def test_protocol_md_invalid_vector(row: list[str]) -> None:
    wire_hex, reason = row
    wire = _hex(wire_hex)
    assert wire.endswith(b"\x00") and wire.count(0) == 1
    after = Ping(ping_id=42)
    assert FrameDecoder().feed(wire + encode(after)) == [ProtocolError(reason, wire[:-1]), after]


def test_protocol_md_states_the_crc_check_value_and_limits() -> None:
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    assert "0x29B1" in text and crc16(b"123456789") == 0x29B1
    assert f"| `MAX_BODY`    | {MAX_BODY}" in text
    assert f"| `MAX_ENCODED` | {MAX_ENCODED}" in text


RESYNC_VECTORS = _vector_table("resync")


@pytest.mark.parametrize("row", RESYNC_VECTORS, ids=[row[0] for row in RESYNC_VECTORS])
def test_protocol_md_garbage_before_a_frame_vector(row: list[str]) -> None:
    """PROTOCOL.md 6.3: one error for the garbage, then the frame (unless 2.4 is broken)."""
    _, stream_hex, reason, decoded = row
    stream = _hex(stream_hex)
    expected: list[Item] = [ProtocolError(reason, stream[: stream.index(0)][:MAX_ENCODED])]
    if decoded != "—":
        msg = _parse_message(decoded)
        # The frame is sent as the device MUST send it: a delimiter before it as well.
        assert stream.endswith(encode_delimited(msg))
        expected.append(msg)
    assert FrameDecoder().feed(stream) == expected
    assert _feed_bytewise(stream) == expected


def test_protocol_md_garbage_vectors_show_the_must_and_its_breach() -> None:
    decoded = [row[3] for row in RESYNC_VECTORS]
    assert decoded[-1] == "—" and all(cell != "—" for cell in decoded[:-1])
    assert "MUST send a 0x00 immediately before every frame" in PROTOCOL_MD.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- garbage before a frame
# PROTOCOL.md 2.4/2.5: the device sends 0x00 before every frame, and the receiver resynchronises
# on it, so garbage on the idle line costs no frame: one error, then the frame.

_PRESS = Press(seq=7, timestamp_us=1_000_000, pads=0b101)
_HALF_FRAME = encode(Press(seq=6, timestamp_us=990_000, pads=0b010))[:6]


def _every_chunking(data: bytes) -> Iterable[list[Item]]:
    """The items of ``data`` fed whole, byte by byte, and split at every position."""
    yield FrameDecoder().feed(data)
    yield _feed_bytewise(data)
    for cut in range(1, len(data)):
        decoder = FrameDecoder()
        yield decoder.feed(data[:cut]) + decoder.feed(data[cut:])


def test_encode_delimited_puts_a_delimiter_before_the_frame() -> None:
    assert encode_delimited(_PRESS) == b"\x00" + encode(_PRESS)
    assert FrameDecoder().feed(encode_delimited(_PRESS) * 3) == [_PRESS] * 3


@pytest.mark.parametrize(
    "garbage",
    [b"\x5a", b"\x01", b"\xff", b"\x03", bytes(range(1, 40)), b"\xaa" * MAX_ENCODED,
     b"\x55" * (MAX_ENCODED + 1), b"\x55" * 500, _HALF_FRAME, encode(_PRESS)[:-2]],
    ids=["stray 5a", "stray 01", "stray ff", "stray 03", "burst 39", "burst 80", "burst 81",
         "burst 500", "half a frame", "a frame without its last two bytes"],
)
def test_garbage_before_a_press_costs_one_error_and_not_the_press(garbage: bytes) -> None:
    stream = garbage + encode_delimited(_PRESS) + encode_delimited(_PRESS)
    for items in _every_chunking(stream):
        assert _messages(items) == [_PRESS, _PRESS]
        assert len(_errors(items)) == 1 and isinstance(items[0], ProtocolError), items


def test_the_leading_delimiter_also_ends_a_frame_whose_delimiter_was_lost() -> None:
    before = Heartbeat(seq=6, timestamp_us=990_000, held=0)
    stream = encode(before)[:-1] + encode_delimited(_PRESS)
    for items in _every_chunking(stream):
        assert items == [before, _PRESS]


def test_without_the_leading_delimiter_a_stray_byte_loses_the_press() -> None:
    # What the MUST of 2.4 prevents: the byte merges with the frame, whose CRC then fails.
    items = FrameDecoder().feed(b"\x5a" + encode(_PRESS))
    assert _messages(items) == [] and len(items) == 1


@pytest.mark.parametrize("seed", range(20))
def test_property_any_garbage_before_a_delimited_frame_never_swallows_it(seed: int) -> None:
    rng = random.Random(5000 + seed)
    sent: list[Message] = []
    parts: list[bytes] = []
    runs = 0  # non-empty delimited runs of garbage: each is reported exactly once
    for _ in range(100):
        if rng.random() < 0.5:
            garbage = _noise(rng)
            parts.append(garbage)
            runs += sum(1 for run in garbage.split(b"\x00") if run)
        msg = _random_message(rng)
        sent.append(msg)
        parts.append(encode_delimited(msg))
    items = _feed_in_random_chunks(rng, b"".join(parts))
    assert _messages(items) == sent
    assert len(_errors(items)) == runs
