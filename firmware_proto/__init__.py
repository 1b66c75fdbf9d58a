"""Wire protocol between the button-pad MCU and the Pi, as a sans-IO codec.

Frames are ``COBS(type ‖ payload ‖ crc16_le) ‖ 00``, and a device sends a 0x00 before each
one as well (:func:`encode_delimited`); PROTOCOL.md next to this file is the
byte-by-byte specification (its test vectors are checked by the tests).  This package does no
I/O and reads no clock: the serial driver and the simulated MCU feed it bytes and records.
"""

from .codec import (
    DELIMITER,
    MAX_BODY,
    MAX_ENCODED,
    MIN_BODY,
    FrameDecoder,
    decode_body,
    encode,
    encode_body,
    encode_delimited,
)
from .framing import cobs_decode, cobs_encode, crc16
from .messages import (
    ANGLE_STATUS_MASK,
    MAX_FIRMWARE_BYTES,
    MAX_HEARTBEAT_INTERVAL_US,
    MAX_PADS,
    MAX_RAW_ANGLE,
    PING_ID_MODULUS,
    PROTOCOL_VERSION,
    RAW_PER_TURN,
    SEQ_MODULUS,
    Angle,
    AngleStatus,
    DeviceMessage,
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
)
from .timebase import STAMP_MODULUS, TimestampUnwrapper

__all__ = [
    "ANGLE_STATUS_MASK",
    "DELIMITER",
    "MAX_BODY",
    "MAX_ENCODED",
    "MAX_FIRMWARE_BYTES",
    "MAX_HEARTBEAT_INTERVAL_US",
    "MAX_PADS",
    "MAX_RAW_ANGLE",
    "MIN_BODY",
    "PING_ID_MODULUS",
    "PROTOCOL_VERSION",
    "RAW_PER_TURN",
    "SEQ_MODULUS",
    "STAMP_MODULUS",
    "Angle",
    "AngleStatus",
    "DeviceMessage",
    "FrameDecoder",
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
    "TimestampUnwrapper",
    "cobs_decode",
    "cobs_encode",
    "crc16",
    "decode_body",
    "encode",
    "encode_body",
    "encode_delimited",
]
