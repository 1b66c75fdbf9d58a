"""The host's keys through the kernel input layer: USB keyboards, presenter clickers and foot
pedals that present themselves as keyboards.

Contract: a `KeyReader` watches one input device and calls ``on_key(code, at_ns)`` for each
key-down (value 1) of a code it was given, at the kernel's timestamp of that event on
CLOCK_MONOTONIC (the console's `time.monotonic_ns` timebase); key-ups (0) and autorepeats (2)
never act. It is started and closed with the console (`start(loop)`, `close()`); a device that
is missing, unplugged or in use is reported through ``on_status`` ("connected" /
"disconnected", with why) and ``on_error`` (once per new problem), and reopened every
``retry_s``: it never raises into the event loop.

Two ways of opening, one way of reading. An ``evdev`` device (a /dev/input path, its stable
/dev/input/by-id/ link, or the name the kernel gives it) is opened with python-evdev, grabbed
(EVIOCGRAB: its keys reach this reader only, never a console login or another program) and
switched to CLOCK_MONOTONIC timestamps (EVIOCSCLOCKID: python-evdev 2.0 has no public call for
it, so this module issues the ioctl on the device's fd itself). A ``stream`` device (a pty or
a FIFO carrying the same binary records; for tests and simulators only) is opened as a file.
Either way the bytes read go through `EventDecoder` (the kernel's ``struct input_event``
layout) and the same dispatch, so a test that writes real records exercises the code that
reads a real keyboard.

Lost device: a read error (ENODEV when a USB device is pulled, EIO when a pty's other side
closes) or end of file.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import logging
import os
import struct
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import cache

from drivers.link_state import LinkState

__all__ = [
    "EVDEV",
    "EV_KEY",
    "EV_SYN",
    "INPUT_EVENT",
    "KEY_DOWN",
    "KEY_REPEAT",
    "KEY_UP",
    "KINDS",
    "STREAM",
    "EvdevMissing",
    "EventDecoder",
    "InputEvent",
    "KeyReader",
    "key_code",
    "key_names",
    "pack_event",
]

log = logging.getLogger(__name__)

# struct input_event: struct timeval (two C longs: seconds, microseconds), __u16 type,
# __u16 code, __s32 value. Native sizes and alignment, as the kernel lays it out for this
# userland: 24 bytes on 64-bit, 16 on a 32-bit Raspberry Pi OS.
INPUT_EVENT = struct.Struct("@llHHi")
EV_SYN, EV_KEY = 0, 1
SYN_DROPPED = 3  # the kernel's buffer overflowed: events were lost
KEY_UP, KEY_DOWN, KEY_REPEAT = 0, 1, 2
# _IOW('E', 0xa0, int): set the clock of this fd's event timestamps (linux/input.h).
EVIOCSCLOCKID = (1 << 30) | (struct.calcsize("i") << 16) | (ord("E") << 8) | 0xA0

EVDEV = "evdev"
STREAM = "stream"
KINDS = (EVDEV, STREAM)

_READ_EVENTS = 64  # records per read: a burst of keys is a handful


class EvdevMissing(ImportError):
    """python-evdev is not installed: host keys need it (the rest of the console does not)."""


@cache
def _names() -> dict[str, int]:
    # python-evdev is imported here, not at the module's top: it is a C extension built from
    # source (no wheels on PyPI), so it is an optional dependency (`pip install .[keys]`, or
    # Debian's python3-evdev), and a console without host keys never needs it.
    try:
        from evdev import ecodes
    except ImportError as exc:
        raise EvdevMissing("host keys need python-evdev: apt-get install python3-evdev, or "
                           "pip install 'chgk-console[keys]' (it builds with gcc and the Linux "
                           "headers)") from exc
    names: dict[str, int] = {}
    for table in (ecodes.KEY, ecodes.BTN):
        for code, name in table.items():
            for alias in (name,) if isinstance(name, str) else name:
                if not alias.endswith(("_MAX", "_CNT")) and alias != "KEY_RESERVED":
                    names[alias] = code
    return names


def key_code(name: str) -> int | None:
    """The code of a key named as in linux/input-event-codes.h (``KEY_SPACE``, ``BTN_LEFT``;
    ``evtest`` prints them), or None if there is no such key. EvdevMissing without python-evdev."""
    return _names().get(name)


def key_names() -> list[str]:
    """Every key name `key_code` knows."""
    return list(_names())


def pack_event(at_ns: int, type_: int, code: int, value: int) -> bytes:
    """One ``struct input_event`` as the kernel writes it (for fakes and tests)."""
    seconds, ns = divmod(at_ns, 1_000_000_000)
    return INPUT_EVENT.pack(seconds, ns // 1000, type_, code, value)


@dataclass(frozen=True, slots=True)
class InputEvent:
    at_ns: int  # the record's timestamp (seconds and microseconds), in ns
    type: int
    code: int
    value: int


class EventDecoder:
    """Bytes read from an input device -> its `InputEvent` records. A real evdev read returns
    whole records; a pipe or pty may split one, so a partial record waits for its rest."""

    def __init__(self) -> None:
        self._rest = b""

    def feed(self, data: bytes) -> list[InputEvent]:
        data = self._rest + data
        whole = len(data) - len(data) % INPUT_EVENT.size
        self._rest = data[whole:]
        return [InputEvent(sec * 1_000_000_000 + usec * 1000, type_, code, value)
                for sec, usec, type_, code, value in INPUT_EVENT.iter_unpack(data[:whole])]


@dataclass(frozen=True)
class _Opened:
    fd: int
    detail: str  # what "connected" says
    close: Callable[[], None]
    monotonic: bool  # its timestamps are on CLOCK_MONOTONIC


def _open_evdev(device: str, codes: Collection[int]) -> _Opened:
    import evdev  # the C extension, only where a real device is opened

    path = device if device.startswith("/") else _find_by_name(device, codes)
    dev = evdev.InputDevice(path)
    try:
        dev.grab()  # EBUSY: another program holds it
        try:
            fcntl.ioctl(dev.fd, EVIOCSCLOCKID, struct.pack("@i", time.CLOCK_MONOTONIC))
            monotonic = True
        except OSError:  # a kernel before 3.4: wall-clock stamps, unusable here
            monotonic = False
        os.set_blocking(dev.fd, False)
    except BaseException:
        dev.close()
        raise
    return _Opened(dev.fd, f"{dev.name} ({path}), grabbed", dev.close, monotonic)


def _find_by_name(name: str, codes: Collection[int]) -> str:
    """The event node whose kernel name is `name`; of several (a wireless receiver gives its
    keyboard and mouse halves one name), the first that has one of the mapped keys."""
    import evdev

    seen: list[str] = []
    match = ""
    for path in sorted(evdev.list_devices()):
        try:
            dev = evdev.InputDevice(path)
        except OSError:
            continue  # vanished, or not ours to read
        try:
            seen.append(dev.name)
            if dev.name == name:
                if set(dev.capabilities().get(evdev.ecodes.EV_KEY, [])) & set(codes):
                    return path
                match = match or path
        finally:
            dev.close()
    if match:
        return match
    found = ", ".join(repr(n) for n in sorted(set(seen))) or "none readable"
    raise FileNotFoundError(errno.ENOENT, f"no input device is named {name!r} (found: {found})")


def _open_stream(path: str) -> _Opened:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    return _Opened(fd, f"{path} (a stream of input_event records)", lambda: os.close(fd), True)


def _why(exc: OSError) -> str:
    if exc.errno == errno.ENOENT:
        if exc.filename is None and exc.strerror:  # no such name (_find_by_name says which exist)
            return exc.strerror
        return "it does not exist (is it plugged in?)"
    if exc.errno == errno.EACCES:
        return "permission denied (is the console user in the input group?)"
    if exc.errno == errno.EBUSY:
        return "another program has grabbed it"
    if exc.errno == errno.ENODEV:
        return "it was unplugged"
    return exc.strerror or str(exc)


class KeyReader:
    """One input device's keys (see the module docstring)."""

    def __init__(
        self,
        device: str,
        codes: Collection[int],
        *,
        on_key: Callable[[int, int], None],
        on_status: Callable[[str, str], None],
        on_error: Callable[[str], None],
        kind: str = EVDEV,  # or STREAM
        clock: Callable[[], int] = time.monotonic_ns,
        retry_s: float = 1.0,
    ) -> None:
        self.device = device
        self.codes = frozenset(codes)
        self.kind = kind
        self._on_key, self._on_status, self._on_error = on_key, on_status, on_error
        self._clock = clock
        self.retry_s = retry_s
        self._loop: asyncio.AbstractEventLoop | None = None
        self._opened: _Opened | None = None
        self._decoder = EventDecoder()
        self._retry: asyncio.TimerHandle | None = None
        self._state: tuple[str, str] | None = None
        self._problem = ""  # the last problem reported through on_error
        self._unstamped_said = False

    @property
    def connected(self) -> bool:
        return self._opened is not None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Open the device now (or report why not and keep trying)."""
        self._loop = loop
        self._open()

    def close(self) -> None:
        """Stop reading and release the device (the grab goes with the fd); idempotent."""
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        self._drop()
        self._loop = None

    # -- life cycle ------------------------------------------------------------------------

    def _open(self) -> None:
        self._retry = None
        loop = self._loop
        if loop is None:
            return
        try:
            if self.kind == STREAM:
                opened = _open_stream(self.device)
            else:
                opened = _open_evdev(self.device, self.codes)
        except OSError as exc:
            self._failed(f"cannot open key device {self.device}: {_why(exc)}")
            return
        self._decoder = EventDecoder()
        try:
            loop.add_reader(opened.fd, self._on_readable)
        except BaseException:
            opened.close()
            raise
        self._opened = opened
        self._problem = ""
        self._report(LinkState.CONNECTED, opened.detail)
        if not opened.monotonic and not self._unstamped_said:
            self._unstamped_said = True
            self._on_error(f"{self.device}: the kernel cannot stamp its events on CLOCK_MONOTONIC; "
                           "its keys are timed on arrival")

    def _failed(self, why: str) -> None:
        """Report `why` (once while it stays the same) and try again in retry_s."""
        self._drop()
        if why != self._problem:
            self._problem = why
            self._on_error(f"{why}; retrying every {self.retry_s:g} s")
        self._report(LinkState.DISCONNECTED, why)
        if self._loop is not None:
            self._retry = self._loop.call_later(self.retry_s, self._open)

    def _drop(self) -> None:
        opened, self._opened = self._opened, None
        if opened is None:
            return
        if self._loop is not None:
            self._loop.remove_reader(opened.fd)
        with contextlib.suppress(OSError):  # the device is gone already
            opened.close()

    def _report(self, state: LinkState, detail: str) -> None:
        if self._state != (state, detail):
            self._state = (state, detail)
            self._on_status(state, detail)

    # -- reading: the same for every kind of device ----------------------------------------

    def _on_readable(self) -> None:
        opened = self._opened
        if opened is None:
            return
        try:
            data = os.read(opened.fd, _READ_EVENTS * INPUT_EVENT.size)
        except BlockingIOError:
            return
        except OSError as exc:
            self._failed(f"key device {self.device} lost: {_why(exc)}")
            return
        if not data:
            self._failed(f"key device {self.device} lost: end of file")
            return
        now = self._clock()
        for event in self._decoder.feed(data):
            self.dispatch(event, now, stamped=opened.monotonic)

    def dispatch(self, event: InputEvent, now: int, *, stamped: bool = True) -> None:
        """Act on one record read at `now`: a mapped key going down is a press, at the
        kernel's time (never later than `now`: a stamp from the future is a broken stream)."""
        if event.type == EV_SYN and event.code == SYN_DROPPED:
            self._on_error(f"key device {self.device}: the kernel dropped events (its buffer was full); "
                           "a key pressed then is lost")
            return
        if event.type != EV_KEY or event.value != KEY_DOWN or event.code not in self.codes:
            return  # key-ups, autorepeat, unmapped keys, and the SYN_REPORTs between them
        try:
            self._on_key(event.code, min(event.at_ns, now) if stamped else now)
        except Exception:  # the reader must outlive a bug downstream
            log.exception("key device %s: the key's handler failed", self.device)

