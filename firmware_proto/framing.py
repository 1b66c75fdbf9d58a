"""Byte-level framing primitives: COBS and CRC-16/CCITT-FALSE.

Both are pure functions over ``bytes``.  COBS (Consistent Overhead Byte Stuffing) rewrites a
body so that it contains no 0x00 byte; the 0x00 byte is then free to delimit frames, which is
what lets a receiver resynchronise after noise: whatever happens, the next 0x00 starts afresh.
"""

from __future__ import annotations

import binascii

__all__ = ["CRC_INIT", "cobs_decode", "cobs_encode", "crc16"]

# A COBS code byte says "the next code-1 bytes are non-zero"; 0xFF is the longest run
# (254 data bytes) and, unlike every other code, is not followed by an implied zero.
_MAX_RUN = 254

# CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, xorout 0.
CRC_INIT = 0xFFFF


def crc16(data: bytes) -> int:
    """Return the CRC-16/CCITT-FALSE of ``data`` (``crc16(b"123456789") == 0x29B1``).

    ``binascii.crc_hqx`` is exactly this CRC (MSB-first, poly 0x1021) with the initial value
    as its second argument; it is implemented in C, so it is the fastest stdlib option.
    """
    return binascii.crc_hqx(data, CRC_INIT)


def cobs_encode(data: bytes) -> bytes:
    """COBS-encode ``data``; the result contains no 0x00 byte and is 1 + len//254 bytes longer.

    The trailing delimiter is not added here (see :func:`firmware_proto.codec.encode`).
    """
    out = bytearray()
    start = 0  # first byte of the current run of non-zero bytes
    n = len(data)
    i = 0
    while i < n:
        if data[i] == 0:
            out.append(i - start + 1)
            out += data[start:i]
            start = i + 1
        elif i - start + 1 == _MAX_RUN and i + 1 < n:
            # A full run with more data after it: emit it with code 0xFF (no implied zero).
            # A full run at the very end falls through to the final block below instead, so
            # the canonical encoding carries no useless trailing 0x01 code.
            out.append(0xFF)
            out += data[start : i + 1]
            start = i + 1
        i += 1
    out.append(n - start + 1)
    out += data[start:n]
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Invert :func:`cobs_encode`; ``data`` excludes the 0x00 delimiter.

    Raises ValueError if ``data`` is not valid COBS: it contains a 0x00 byte, or a code byte
    announces more bytes than remain.
    """
    n = len(data)
    if 0 < n < 0xFF and 0 not in data:
        # Every frame of the protocol (at most MAX_ENCODED bytes): no 0xFF code fits, so each
        # code byte after the first stands exactly where a zero was. Walk the codes, put the
        # zeros back and drop the first code; an overrun is named by the general decoder.
        out = bytearray(data)
        i = 0
        while i < n:
            code = out[i]
            out[i] = 0
            i += code
        if i == n:
            del out[0]
            return bytes(out)
    return _cobs_decode_general(data)


def _cobs_decode_general(data: bytes) -> bytes:
    """`cobs_decode` for any length, and the one that names what is wrong."""
    out = bytearray()
    n = len(data)
    i = 0
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError(f"zero byte at offset {i}")
        end = i + code
        if end > n:
            size = "1 byte" if n == 1 else f"{n} bytes"
            raise ValueError(f"code byte 0x{code:02X} at offset {i} runs past the end ({size})")
        run = data[i + 1 : end]
        if 0 in run:
            raise ValueError(f"zero byte at offset {i + 1 + run.index(0)}")
        out += run
        i = end
        # Every code except 0xFF stands for "run, then a zero"; the zero after the last run
        # is the delimiter itself and therefore not part of the data.
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)
