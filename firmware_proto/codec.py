"""Sans-IO codec: messages <-> wire frames, and a resynchronising stream decoder.

A frame on the wire is ``COBS(body) ‖ 00`` with ``body = type ‖ payload ‖ crc16_le`` (see
PROTOCOL.md).  Nothing here performs I/O or reads a clock: :func:`encode` returns bytes to
write, :class:`FrameDecoder` is fed whatever bytes were read and returns what they contained.
"""

from __future__ import annotations

import struct
from typing import Final

from .framing import cobs_decode, cobs_encode, crc16
from .messages import (
    MAX_ANGLES_PER_FRAME,
    MAX_FIRMWARE_BYTES,
    PROTOCOL_VERSION,
    Angle,
    AngleRate,
    Angles,
    Heartbeat,
    Hello,
    HelloRequest,
    Lamps,
    Message,
    MsgType,
    Ping,
    Pong,
    Press,
    ProtocolError,
    Release,
    Resend,
)

__all__ = [
    "DELIMITER",
    "MAX_BODY",
    "MAX_ENCODED",
    "MIN_BODY",
    "FrameDecoder",
    "decode_body",
    "encode",
    "encode_body",
    "encode_delimited",
]

DELIMITER: Final = b"\x00"
# type (1) + CRC (2): the smallest body that can be checked at all.
MIN_BODY: Final = 3
# The longest message (ANGLES with MAX_ANGLES_PER_FRAME readings) has a 62-byte body, HELLO
# with a 32-byte firmware string 43; 64 keeps a device-side buffer tiny.
MAX_BODY: Final = 64
# Encoded bytes held while waiting for a delimiter.  COBS(64 bytes) is 65 bytes; the margin
# lets a slightly over-long body be reported with its decoded length, and the cap is what
# bounds the receiver's memory: a noise burst without any 0x00 never buffers more than this.
MAX_ENCODED: Final = 80

# Fixed-size payload layouts, little-endian, no padding ("<").
_HELLO_FIXED: Final = struct.Struct("<BBHI")  # version, pad_count, resolution, timestamp
_SEQ_STAMP_MASK: Final = struct.Struct("<HIH")  # PRESS, RELEASE, HEARTBEAT
_PONG: Final = struct.Struct("<HI")
_ANGLE: Final = struct.Struct("<HIHB")
_ANGLES_HEAD: Final = struct.Struct("<HIB")  # seq, the newest reading's stamp, status
_ANGLES_READING: Final = 4  # age_us u16, raw_angle u16
# The pairs of readings of an ANGLES payload by their count, unpacked in one call.
_ANGLES_PAIRS: Final = {n: struct.Struct(f"<{2 * n}H") for n in range(1, MAX_ANGLES_PER_FRAME + 1)}
_HELLO_REQUEST: Final = struct.Struct("<B")
_LAMPS: Final = struct.Struct("<HH")
_PING: Final = struct.Struct("<H")
_RESEND: Final = struct.Struct("<HB")
_ANGLE_RATE: Final = struct.Struct("<H")
_CRC: Final = struct.Struct("<H")


def _n_bytes(n: int) -> str:
    return "1 byte" if n == 1 else f"{n} bytes"


class _BadFrame(Exception):
    """Internal: carries the reason of a ProtocolError out of the payload parsers."""


# --------------------------------------------------------------------------- encoding


def _type_and_payload(msg: Message) -> tuple[MsgType, bytes]:
    match msg:
        case Hello():
            fixed = _HELLO_FIXED.pack(
                msg.protocol_version, msg.pad_count, msg.timer_resolution_us, msg.timestamp_us
            )
            return MsgType.HELLO, fixed + msg.firmware.encode("utf-8")
        case Press():
            return MsgType.PRESS, _SEQ_STAMP_MASK.pack(msg.seq, msg.timestamp_us, msg.pads)
        case Release():
            return MsgType.RELEASE, _SEQ_STAMP_MASK.pack(msg.seq, msg.timestamp_us, msg.pads)
        case Heartbeat():
            return MsgType.HEARTBEAT, _SEQ_STAMP_MASK.pack(msg.seq, msg.timestamp_us, msg.held)
        case Pong():
            return MsgType.PONG, _PONG.pack(msg.ping_id, msg.timestamp_us)
        case Angle():
            payload = _ANGLE.pack(msg.seq, msg.timestamp_us, msg.raw_angle, msg.status)
            return MsgType.ANGLE, payload
        case Angles():
            head = _ANGLES_HEAD.pack(msg.seq, msg.timestamp_us, msg.status)
            flat = [value for reading in msg.readings for value in reading]
            return MsgType.ANGLES, head + _ANGLES_PAIRS[len(msg.readings)].pack(*flat)
        case HelloRequest():
            return MsgType.HELLO_REQUEST, _HELLO_REQUEST.pack(msg.protocol_version)
        case Lamps():
            return MsgType.LAMPS, _LAMPS.pack(msg.on, msg.blink)
        case Ping():
            return MsgType.PING, _PING.pack(msg.ping_id)
        case Resend():
            return MsgType.RESEND, _RESEND.pack(msg.from_seq, msg.count)
        case AngleRate():
            return MsgType.ANGLE_RATE, _ANGLE_RATE.pack(msg.interval_us)
    raise TypeError(f"not a protocol message: {msg!r}")


def encode_body(msg: Message) -> bytes:
    """Return ``type ‖ payload ‖ crc16_le`` for ``msg`` (the frame before COBS)."""
    msg_type, payload = _type_and_payload(msg)
    checked = bytes([msg_type]) + payload
    return checked + _CRC.pack(crc16(checked))


def encode(msg: Message) -> bytes:
    """Return the complete wire frame for ``msg``: ``COBS(body) ‖ 00``.

    The result contains exactly one 0x00 byte, the last one.  Records validate their fields
    on construction, so every message encodes.
    """
    return cobs_encode(encode_body(msg)) + DELIMITER


def encode_delimited(msg: Message) -> bytes:
    """Return ``00 ‖ COBS(body) ‖ 00``: the frame as a device MUST send it (PROTOCOL.md 2.4).

    The leading delimiter ends whatever the receiver holds (a stray byte, half a frame, a
    burst of noise picked up while the line was idle) before this frame starts, so that noise
    is reported on its own and never merges with the frame: a press is not lost to a byte of
    noise just before it.  Receivers skip the empty frame between two delimiters silently.
    """
    return DELIMITER + cobs_encode(encode_body(msg)) + DELIMITER


# --------------------------------------------------------------------------- decoding


# The fixed-size messages: payload layout and record, by type (HELLO has a variable tail).
_FIXED: Final[dict[MsgType, tuple[struct.Struct, type[Message]]]] = {
    MsgType.PRESS: (_SEQ_STAMP_MASK, Press),
    MsgType.RELEASE: (_SEQ_STAMP_MASK, Release),
    MsgType.HEARTBEAT: (_SEQ_STAMP_MASK, Heartbeat),
    MsgType.PONG: (_PONG, Pong),
    MsgType.ANGLE: (_ANGLE, Angle),
    MsgType.HELLO_REQUEST: (_HELLO_REQUEST, HelloRequest),
    MsgType.LAMPS: (_LAMPS, Lamps),
    MsgType.PING: (_PING, Ping),
    MsgType.RESEND: (_RESEND, Resend),
    MsgType.ANGLE_RATE: (_ANGLE_RATE, AngleRate),
}


def _parse_payload(msg_type: MsgType, payload: bytes) -> Message:
    """Build the record for a CRC-checked payload; raises _BadFrame or ValueError."""
    if msg_type is MsgType.HELLO:
        _check_hello_size(payload)
        version, pad_count, resolution, stamp = _HELLO_FIXED.unpack_from(payload)
        try:
            firmware = payload[_HELLO_FIXED.size:].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _BadFrame(f"HELLO firmware is not valid UTF-8: {exc.reason}") from None
        return Hello(version, pad_count, resolution, stamp, firmware)
    if msg_type is MsgType.ANGLES:
        return _parse_angles(payload)
    layout, record = _FIXED[msg_type]
    if len(payload) != layout.size:
        raise _BadFrame(f"{msg_type.name} payload is {_n_bytes(len(payload))}, expected {layout.size}")
    return record(*layout.unpack(payload))  # the record checks the field values


def _parse_angles(payload: bytes) -> Angles:
    count, extra = divmod(len(payload) - _ANGLES_HEAD.size, _ANGLES_READING)
    if extra or not 1 <= count <= MAX_ANGLES_PER_FRAME:
        lo = _ANGLES_HEAD.size + _ANGLES_READING
        hi = _ANGLES_HEAD.size + _ANGLES_READING * MAX_ANGLES_PER_FRAME
        raise _BadFrame(f"ANGLES payload is {_n_bytes(len(payload))}, expected {lo}..{hi} "
                        f"({_ANGLES_HEAD.size} and {_ANGLES_READING} a reading)")
    seq, stamp, status = _ANGLES_HEAD.unpack_from(payload)
    flat = _ANGLES_PAIRS[count].unpack_from(payload, _ANGLES_HEAD.size)
    return Angles(seq, stamp, status, tuple(zip(flat[0::2], flat[1::2], strict=True)))


def _check_hello_size(payload: bytes) -> None:
    lo = _HELLO_FIXED.size
    hi = lo + MAX_FIRMWARE_BYTES
    if lo <= len(payload) <= hi:
        return
    reason = f"HELLO payload is {_n_bytes(len(payload))}, expected {lo}..{hi}"
    # The first payload byte of HELLO is the protocol version in every version of the
    # protocol, so a device speaking another version can still be named as such.
    if payload and payload[0] != PROTOCOL_VERSION:
        reason += f" (device speaks protocol version {payload[0]}, host {PROTOCOL_VERSION})"
    raise _BadFrame(reason)


def decode_body(body: bytes) -> Message | ProtocolError:
    """Decode an already COBS-decoded ``type ‖ payload ‖ crc16_le``; never raises.

    Checks, in this order: body length, CRC (a bad CRC makes every other byte suspect, so it
    is reported first), type, payload length, field values.  Any failure is returned as a
    :class:`ProtocolError` whose ``raw`` is ``body`` (capped at MAX_ENCODED bytes).
    """
    body = bytes(body)
    try:
        return _decode_checked(body)
    except _BadFrame as exc:
        return ProtocolError(str(exc), body[:MAX_ENCODED])


# A dict lookup, not MsgType(byte): calling an Enum class is slow, and this is the press path.
_MSG_TYPES = {t.value: t for t in MsgType}


def _decode_checked(body: bytes) -> Message:
    if len(body) < MIN_BODY:
        raise _BadFrame(
            f"frame body is {_n_bytes(len(body))}, shorter than the minimum {MIN_BODY} (type + CRC)"
        )
    if len(body) > MAX_BODY:
        raise _BadFrame(f"frame body is {len(body)} bytes, longer than the maximum {MAX_BODY}")
    (got,) = _CRC.unpack_from(body, len(body) - _CRC.size)
    computed = crc16(body[: -_CRC.size])
    if got != computed:
        raise _BadFrame(f"CRC mismatch: got 0x{got:04X}, computed 0x{computed:04X}")
    msg_type = _MSG_TYPES.get(body[0])
    if msg_type is None:
        raise _BadFrame(f"unknown message type 0x{body[0]:02X}")
    try:
        return _parse_payload(msg_type, body[1 : -_CRC.size])
    except ValueError as exc:  # a record rejected a field value
        raise _BadFrame(f"invalid {msg_type.name}: {exc}") from None


def _decode_frame(encoded: bytes) -> Message | ProtocolError:
    """Decode one frame as received (without delimiter); errors carry the wire bytes."""
    try:
        body = cobs_decode(encoded)
    except ValueError as exc:
        return ProtocolError(f"bad COBS encoding: {exc}", encoded[:MAX_ENCODED])
    try:
        return _decode_checked(body)
    except _BadFrame as exc:
        return ProtocolError(str(exc), encoded[:MAX_ENCODED])


class FrameDecoder:
    """Incremental, resynchronising decoder for a received byte stream.

    Contract:

    * :meth:`feed` accepts any chunking (whole frames, single bytes, several frames at once)
      and returns, in stream order, one item per non-empty frame completed by this chunk: a
      message, or a :class:`ProtocolError` naming what was wrong.  It never raises on data.
    * After any error, decoding restarts at the next 0x00: a valid frame that follows a
      delimiter always decodes, whatever came before.  Garbage (a stray byte, a burst of
      noise, half a frame) is discarded up to and including the next 0x00 and reported as
      one error per such delimited run; since a device sends 0x00 before every frame
      (:func:`encode_delimited`), garbage on an idle line never swallows the next frame.
    * Empty frames (consecutive 0x00 bytes) are skipped silently; a sender may send 0x00 to
      flush the receiver.
    * Memory is bounded: at most MAX_ENCODED bytes are buffered.  A longer run without a
      delimiter yields a single "frame longer than ..." error and is discarded up to and
      including the next 0x00.
    """

    __slots__ = ("_buf", "_discarding")

    def __init__(self) -> None:
        self._buf = bytearray()
        # True while skipping the rest of an over-long frame (its error is already reported).
        self._discarding = False

    @property
    def buffered(self) -> int:
        """Bytes held waiting for a delimiter (0 while discarding an over-long frame)."""
        return len(self._buf)

    def reset(self) -> None:
        """Forget any partial frame, e.g. after reopening the port."""
        self._buf.clear()
        self._discarding = False

    def feed(self, data: bytes | bytearray | memoryview) -> list[Message | ProtocolError]:
        """Consume ``data``; return the messages and errors of every frame it completed."""
        data = bytes(data)
        out: list[Message | ProtocolError] = []
        start = 0
        while (end := data.find(0, start)) >= 0:
            if self._buf or self._discarding or end - start > MAX_ENCODED:
                self._accumulate(data[start:end], out)
                self._end_frame(out)
            elif end > start:  # a whole frame in this chunk (the usual case): decode it in place
                out.append(_decode_frame(data[start:end]))
            start = end + 1
        self._accumulate(data[start:], out)
        return out

    def _accumulate(self, chunk: bytes, out: list[Message | ProtocolError]) -> None:
        if self._discarding or not chunk:
            return
        room = MAX_ENCODED - len(self._buf)
        if len(chunk) <= room:
            self._buf += chunk
            return
        # Too long to be a frame: report it once, keep only its first MAX_ENCODED bytes as
        # evidence and skip everything up to the next delimiter.
        raw = bytes(self._buf) + chunk[:room]
        out.append(ProtocolError(f"frame longer than {MAX_ENCODED} bytes", raw))
        self._buf.clear()
        self._discarding = True

    def _end_frame(self, out: list[Message | ProtocolError]) -> None:
        if self._discarding:
            self._discarding = False
            return
        if not self._buf:
            return  # empty frame: a flush, not an error
        encoded = bytes(self._buf)
        self._buf.clear()
        out.append(_decode_frame(encoded))
