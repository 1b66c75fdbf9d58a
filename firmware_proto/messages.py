"""Message records of the MCU <-> Pi protocol (see PROTOCOL.md for the wire layout).

Each message is a small frozen record that validates its own field ranges, so a record that
exists can always be encoded, and a decoded frame whose fields are out of range becomes a
:class:`ProtocolError` instead of a record.  Range violations raise ``ValueError`` naming the
field; a field of the wrong Python type (including ``bool``) raises ``TypeError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, IntFlag
from typing import TypeAlias

__all__ = [
    "ANGLE_STATUS_MASK",
    "MAX_ANGLES_PER_FRAME",
    "MAX_FIRMWARE_BYTES",
    "MAX_HEARTBEAT_INTERVAL_US",
    "MAX_PADS",
    "MAX_RAW_ANGLE",
    "PING_ID_MODULUS",
    "PROTOCOL_VERSION",
    "RAW_PER_TURN",
    "RESEND_DEPTH",
    "SEQ_MODULUS",
    "Angle",
    "AngleRate",
    "AngleStatus",
    "Angles",
    "DeviceMessage",
    "Heartbeat",
    "Hello",
    "HelloRequest",
    "HostMessage",
    "Lamps",
    "Message",
    "MsgType",
    "Ping",
    "Pong",
    "Press",
    "ProtocolError",
    "Release",
    "Resend",
]

PROTOCOL_VERSION = 2  # 2: ANGLES (a burst of readings in one frame)

# Pad sets travel as u16 bitmasks (bit i = pad i), so a device has at most 16 pads.
MAX_PADS = 16
# The firmware string is informational (logs, the operator's "about" screen); 32 bytes fit
# "name 1.2.3+gabcdef0" comfortably and keep HELLO, the longest message, well under MAX_BODY.
MAX_FIRMWARE_BYTES = 32
# The angle sensor is 12-bit: RAW_PER_TURN readings per revolution, 0..MAX_RAW_ANGLE. The
# console's angle code (sectors, the spin detector, the simulated top) takes its scale from here.
RAW_PER_TURN = 4096
MAX_RAW_ANGLE = RAW_PER_TURN - 1
# ANGLES carries at most this many readings: 7 + 4 x 13 bytes of payload keep its body (62
# bytes) within MAX_BODY, so no receiver buffer grows for it.
MAX_ANGLES_PER_FRAME = 13
# PRESS, RELEASE, HEARTBEAT, ANGLE and ANGLES share one u16 sequence counter that wraps 65535 -> 0
# (PROTOCOL.md 5.3); a PING's u16 id wraps the same way (4.9).
SEQ_MODULUS = 1 << 16
PING_ID_MODULUS = 1 << 16
# The device sends a HEARTBEAT at least this often, whatever other traffic there is (5.4).
MAX_HEARTBEAT_INTERVAL_US = 100_000
# The device keeps at least its last RESEND_DEPTH sequenced frames to send again on RESEND
# (5.9): 16 frames are 800 ms of heartbeats, far more than a gap takes to notice and repair,
# and 16 copies of 10 bytes fit the smallest MCU's SRAM.
RESEND_DEPTH = 16


class MsgType(IntEnum):
    """The type byte, first byte of every body.  Bit 7 is the direction: set = host -> device."""

    # device -> host
    HELLO = 0x01
    PRESS = 0x02
    RELEASE = 0x03
    HEARTBEAT = 0x04
    PONG = 0x05
    ANGLE = 0x06
    ANGLES = 0x07
    # host -> device
    HELLO_REQUEST = 0x81
    LAMPS = 0x82
    PING = 0x83
    RESEND = 0x84
    ANGLE_RATE = 0x85


class AngleStatus(IntFlag):
    """Bits of :attr:`Angle.status`; bits 3..7 are reserved and must be zero."""

    MAGNET_DETECTED = 0x01
    MAGNET_TOO_WEAK = 0x02
    MAGNET_TOO_STRONG = 0x04


# Every defined status bit; the others are reserved and must be zero.
ANGLE_STATUS_MASK = int(
    AngleStatus.MAGNET_DETECTED | AngleStatus.MAGNET_TOO_WEAK | AngleStatus.MAGNET_TOO_STRONG
)


def _check_int(name: str, value: object) -> int:
    # bool is an int subclass, but Press(seq=True, ...) is certainly a bug.
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    return value


def _check_uint(name: str, value: object, bits: int) -> None:
    # A plain int skips the call to _check_int: this runs for every field of every frame.
    v = value if type(value) is int else _check_int(name, value)
    if not 0 <= v < 1 << bits:
        raise ValueError(f"{name} must fit in {bits} bits (0..{(1 << bits) - 1}), got {v}")


def _check_range(name: str, value: object, lo: int, hi: int, why: str) -> None:
    v = _check_int(name, value)
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be {lo}..{hi} ({why}), got {v}")


def _check_pad_set(name: str, value: object) -> None:
    _check_uint(name, value, MAX_PADS)
    # A PRESS/RELEASE is sent because some pad changed; an empty set is a firmware bug.
    if value == 0:
        raise ValueError(f"{name} must name at least one pad, got 0")


def _bit_indices(mask: int) -> tuple[int, ...]:
    indices = []
    index = 0
    while mask:  # a loop, not a generator: this is the press path
        if mask & 1:
            indices.append(index)
        mask >>= 1
        index += 1
    return tuple(indices)


@dataclass(frozen=True, slots=True)
class Hello:
    """Device -> host, at power-up and in answer to HELLO_REQUEST: who the device is."""

    protocol_version: int
    pad_count: int
    timer_resolution_us: int
    timestamp_us: int
    firmware: str

    def __post_init__(self) -> None:
        # Any u8 version must be representable: the host has to decode a HELLO from a
        # device of another version to refuse it with a clear message.
        _check_uint("protocol_version", self.protocol_version, 8)
        _check_range("pad_count", self.pad_count, 0, MAX_PADS, "pad sets are 16-bit masks")
        _check_range("timer_resolution_us", self.timer_resolution_us, 1, 0xFFFF, "u16, zero is meaningless")
        _check_uint("timestamp_us", self.timestamp_us, 32)
        if not isinstance(self.firmware, str):
            raise TypeError(f"firmware must be a str, got {type(self.firmware).__name__}")
        try:
            size = len(self.firmware.encode("utf-8"))
        except UnicodeEncodeError as exc:  # lone surrogates
            raise ValueError(f"firmware must be encodable as UTF-8: {exc}") from None
        if size > MAX_FIRMWARE_BYTES:
            raise ValueError(f"firmware must be at most {MAX_FIRMWARE_BYTES} bytes of UTF-8, got {size}")


@dataclass(frozen=True, slots=True)
class Press:
    """Device -> host: the pads in ``pads`` were found pressed in the scan at ``timestamp_us``."""

    seq: int
    timestamp_us: int
    pads: int

    def __post_init__(self) -> None:
        _check_uint("seq", self.seq, 16)
        _check_uint("timestamp_us", self.timestamp_us, 32)
        _check_pad_set("pads", self.pads)

    @property
    def pad_indices(self) -> tuple[int, ...]:
        """Indices of the pads in ``pads``, ascending."""
        return _bit_indices(self.pads)


@dataclass(frozen=True, slots=True)
class Release:
    """Device -> host: the pads in ``pads`` were found released in the scan at ``timestamp_us``."""

    seq: int
    timestamp_us: int
    pads: int

    def __post_init__(self) -> None:
        _check_uint("seq", self.seq, 16)
        _check_uint("timestamp_us", self.timestamp_us, 32)
        _check_pad_set("pads", self.pads)

    @property
    def pad_indices(self) -> tuple[int, ...]:
        """Indices of the pads in ``pads``, ascending."""
        return _bit_indices(self.pads)


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """Device -> host, at least every 100 ms: alive, time is ``timestamp_us``, ``held`` are down."""

    seq: int
    timestamp_us: int
    held: int

    def __post_init__(self) -> None:
        _check_uint("seq", self.seq, 16)
        _check_uint("timestamp_us", self.timestamp_us, 32)
        _check_uint("held", self.held, MAX_PADS)

    @property
    def held_indices(self) -> tuple[int, ...]:
        """Indices of the pads in ``held``, ascending."""
        return _bit_indices(self.held)


@dataclass(frozen=True, slots=True)
class Pong:
    """Device -> host: answer to PING ``ping_id``; ``timestamp_us`` is when it was handled."""

    ping_id: int
    timestamp_us: int

    def __post_init__(self) -> None:
        _check_uint("ping_id", self.ping_id, 16)
        _check_uint("timestamp_us", self.timestamp_us, 32)


@dataclass(frozen=True, slots=True)
class Angle:
    """Device -> host: a reading of the 12-bit angle sensor, ``status`` is :class:`AngleStatus`."""

    seq: int
    timestamp_us: int
    raw_angle: int
    status: int

    def __post_init__(self) -> None:
        # One cheap test first: a top streams up to a thousand of these a second, and they
        # are nearly always valid; the detailed checks below only name what is wrong.
        if (type(self.seq) is int and type(self.timestamp_us) is int and type(self.raw_angle) is int
                and type(self.status) is int and 0 <= self.seq <= 0xFFFF
                and 0 <= self.timestamp_us <= 0xFFFF_FFFF and 0 <= self.raw_angle <= MAX_RAW_ANGLE
                and self.status >= 0 and not self.status & ~ANGLE_STATUS_MASK):
            return
        _check_uint("seq", self.seq, 16)
        _check_uint("timestamp_us", self.timestamp_us, 32)
        _check_range("raw_angle", self.raw_angle, 0, MAX_RAW_ANGLE, "12-bit sensor")
        _check_uint("status", self.status, 8)
        if self.status & ~ANGLE_STATUS_MASK:
            raise ValueError(f"status must use only bits 0..2 (3..7 are reserved), got {self.status:#04x}")

    @property
    def flags(self) -> AngleStatus:
        """``status`` as flags."""
        return AngleStatus(self.status)

    @property
    def degrees(self) -> float:
        """``raw_angle`` in degrees, 0 <= degrees < 360."""
        return self.raw_angle * 360.0 / (MAX_RAW_ANGLE + 1)


@dataclass(frozen=True, slots=True)
class Angles:
    """Device -> host: a burst of readings of the angle sensor with one sensor ``status``, in
    one frame (PROTOCOL.md 4.11). ``timestamp_us`` is the newest reading's time; ``readings``
    are ``(age_us, raw_angle)`` pairs, oldest first, each taken ``age_us`` before it (so the
    ages do not grow, and the last one is 0)."""

    seq: int
    timestamp_us: int
    status: int
    readings: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        if self._plainly_valid():
            return
        _check_uint("seq", self.seq, 16)
        _check_uint("timestamp_us", self.timestamp_us, 32)
        _check_uint("status", self.status, 8)
        if self.status & ~ANGLE_STATUS_MASK:
            raise ValueError(f"status must use only bits 0..2 (3..7 are reserved), got {self.status:#04x}")
        if not 1 <= len(self.readings) <= MAX_ANGLES_PER_FRAME:
            raise ValueError(f"readings must be 1..{MAX_ANGLES_PER_FRAME}, got {len(self.readings)}")
        previous = 0xFFFF
        for age, raw in self.readings:
            _check_uint("age_us", age, 16)
            _check_range("raw_angle", raw, 0, MAX_RAW_ANGLE, "12-bit sensor")
            if age > previous:
                raise ValueError(f"the readings' ages must not grow (oldest first), "
                                 f"got {age} after {previous}")
            previous = age
        if previous != 0:
            raise ValueError("the last reading's age must be 0 (the frame's stamp is its time), "
                             f"got {previous}")

    def _plainly_valid(self) -> bool:
        """The usual case in one pass of cheap tests (a top streams bursts all the while); the
        checks in ``__post_init__`` only name what is wrong."""
        readings = self.readings
        if not (type(self.seq) is int and type(self.timestamp_us) is int and type(self.status) is int
                and 0 <= self.seq <= 0xFFFF and 0 <= self.timestamp_us <= 0xFFFF_FFFF
                and self.status >= 0 and not self.status & ~ANGLE_STATUS_MASK
                and type(readings) is tuple and 0 < len(readings) <= MAX_ANGLES_PER_FRAME):
            return False
        previous = 0xFFFF
        for reading in readings:
            if type(reading) is not tuple or len(reading) != 2:
                return False
            age, raw = reading
            if not (type(age) is int and type(raw) is int and 0 <= age <= previous
                    and 0 <= raw <= MAX_RAW_ANGLE):
                return False
            previous = age
        return previous == 0


@dataclass(frozen=True, slots=True)
class HelloRequest:
    """Host -> device: "say HELLO"; carries the host's protocol version."""

    protocol_version: int

    def __post_init__(self) -> None:
        _check_uint("protocol_version", self.protocol_version, 8)


@dataclass(frozen=True, slots=True)
class Lamps:
    """Host -> device: the complete lamp state (idempotent); ``blink`` wins over ``on``."""

    on: int
    blink: int

    def __post_init__(self) -> None:
        _check_uint("on", self.on, MAX_PADS)
        _check_uint("blink", self.blink, MAX_PADS)


@dataclass(frozen=True, slots=True)
class Ping:
    """Host -> device: answer with PONG carrying the same ``ping_id``."""

    ping_id: int

    def __post_init__(self) -> None:
        _check_uint("ping_id", self.ping_id, 16)


@dataclass(frozen=True, slots=True)
class Resend:
    """Host -> device: send again the sequenced frames ``from_seq`` .. ``from_seq + count - 1``
    (mod 2**16) that the device still holds, unchanged (PROTOCOL.md 5.9)."""

    from_seq: int
    count: int

    def __post_init__(self) -> None:
        _check_uint("from_seq", self.from_seq, 16)
        _check_uint("count", self.count, 8)
        if self.count == 0:
            raise ValueError("count must be at least 1, got 0")


@dataclass(frozen=True, slots=True)
class AngleRate:
    """Host -> device: send at most one angle reading per ``interval_us`` of the device's
    timer (a reading whose status changed always goes); 0: every reading (PROTOCOL.md 4.12).
    Optional for the device: one that drops it sends every reading, and the host thins."""

    interval_us: int

    def __post_init__(self) -> None:
        _check_uint("interval_us", self.interval_us, 16)


@dataclass(frozen=True, slots=True)
class ProtocolError:
    """A frame that could not be decoded; reported in the output stream, never raised.

    ``reason`` names what was wrong; ``raw`` holds the offending bytes (as received on the
    wire, without the 0x00 delimiter, when produced by ``FrameDecoder``; the body when
    produced by ``decode_body``), at most ``MAX_ENCODED`` bytes.
    """

    reason: str
    raw: bytes


DeviceMessage: TypeAlias = Hello | Press | Release | Heartbeat | Pong | Angle | Angles
HostMessage: TypeAlias = HelloRequest | Lamps | Ping | Resend | AngleRate
Message: TypeAlias = DeviceMessage | HostMessage
