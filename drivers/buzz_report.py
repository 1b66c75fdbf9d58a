"""The Sony Buzz! controllers' USB HID reports: decode the buttons, encode the lamps (pure).

Contract: `buttons(report)` gives the 20 button bits of one 5-byte input report (bit
``handset * 5 + colour``, colours in `COLOURS` order); `newly_pressed(before, after, selected)`
gives the handsets whose selected buttons went down between two reports; `lamp_report(lit)`
gives the bytes to write to the hidraw node to light the red lamps of the handsets in `lit`;
`input_report(bits)` builds an input report (the fake device in tests sends exactly what the
controller sends). No I/O here: the driver (drivers/buzz.py) and the fake (drivers/buzz_fake.py)
share it.

The layout (sources: Linux ``drivers/hid/hid-sony.c`` ``buzz_set_leds``; PCSX2
``pcsx2/USB/usb-pad/usb-buzz.cpp`` and ``usb-buzz.h``, which reproduce the wired controller's
descriptors; coolacid/python_buzz ``buzz.py``):

* USB ids 054c:0002 (wired) and 054c:1000 (the wireless receiver); both bound by hid-sony with
  its BUZZ_CONTROLLER quirk, which drives the lamps the same way for both.
* Input report, no report id, 5 bytes: X and Y (0x7f), then 20 one-bit buttons from the
  least significant bit of byte 2: handset 1 red, yellow, green, orange, blue, handset 2 red,
  ... handset 4 blue; then 4 vendor bits (the top nibble of byte 4).
* Output report, no report id, 7 bytes: ``00 L1 L2 L3 L4 00 00`` (0xff lit, 0x00 dark). A
  hidraw write starts with the report number, 0 for a device without numbered reports, so
  8 bytes are written.
* One interrupt IN endpoint, ``bInterval`` 10 at full speed: the host polls it every 10 ms, so
  a report's arrival places its presses only within 10 ms (`POLL_INTERVAL_US`).
"""

from __future__ import annotations

__all__ = [
    "COLOURS",
    "HANDSETS",
    "POLL_INTERVAL_US",
    "PRODUCTS",
    "REPORT_SIZE",
    "VENDOR_SONY",
    "button_bit",
    "buttons",
    "input_report",
    "lamp_report",
    "newly_pressed",
    "selection",
]

VENDOR_SONY = 0x054C
PRODUCTS = {0x0002: "Sony Buzz! (wired)", 0x1000: "Sony Buzz! (wireless receiver)"}
HANDSETS = 4
COLOURS = ("red", "yellow", "green", "orange", "blue")  # a handset's buttons, bit order
REPORT_SIZE = 5  # input report bytes
POLL_INTERVAL_US = 10_000  # bInterval 10 at full speed (usb-buzz.cpp's endpoint descriptor)
_AXES = b"\x7f\x7f"  # the two unused joystick axes, centred
_VENDOR_BITS = 0xF << 20  # the report's last nibble, set on the controller (usb-buzz.cpp)
_BUTTON_BITS = (1 << (HANDSETS * len(COLOURS))) - 1


def button_bit(handset: int, colour: str) -> int:
    """The bit of `colour` (one of `COLOURS`) on `handset` (0..3) in `buttons()`'s value."""
    if not 0 <= handset < HANDSETS:
        raise ValueError(f"handset must be 0..{HANDSETS - 1}, got {handset}")
    return 1 << (handset * len(COLOURS) + COLOURS.index(colour))


def selection(colours: tuple[str, ...]) -> tuple[int, ...]:
    """Per handset, the mask of the buttons that count as its buzzer."""
    unknown = [c for c in colours if c not in COLOURS]
    if unknown or not colours:
        raise ValueError(f"buzzer buttons must be some of {', '.join(COLOURS)}, got {list(colours)}")
    return tuple(sum(button_bit(h, c) for c in set(colours)) for h in range(HANDSETS))


def buttons(report: bytes) -> int:
    """The 20 button bits of one input report (ValueError if it is not `REPORT_SIZE` bytes)."""
    if len(report) != REPORT_SIZE:
        raise ValueError(f"a Buzz! input report has {REPORT_SIZE} bytes, got {len(report)}")
    return int.from_bytes(report[2:5], "little") & _BUTTON_BITS


def newly_pressed(before: int, after: int, selected: tuple[int, ...]) -> tuple[int, ...]:
    """The handsets none of whose selected buttons were down in `before` and some are in `after`."""
    return tuple(h for h, mask in enumerate(selected) if after & mask and not before & mask)


def input_report(bits: int) -> bytes:
    """The input report the controller sends with buttons `bits` down (as `buttons()` reads)."""
    return _AXES + ((bits & _BUTTON_BITS) | _VENDOR_BITS).to_bytes(3, "little")


def lamp_report(lit: int) -> bytes:
    """What to write to the hidraw node to light the handsets whose bit is set in `lit`:
    report number 0, then the 7-byte output report."""
    lamps = bytes(0xFF if lit >> h & 1 else 0x00 for h in range(HANDSETS))
    return b"\x00\x00" + lamps + b"\x00\x00"
