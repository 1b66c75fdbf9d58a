"""Sony Buzz! USB buzzers (4 handsets, 5 buttons and a red lamp each) through the kernel's hidraw node.

Why hidraw and not pyusb: the kernel's hid-sony driver stays bound (pyusb has to detach it,
and re-attaching it on exit is known not to work: coolacid/python_buzz's TODO), so the
controller keeps working for everything else and a crash leaves nothing detached; the node is
a plain file descriptor the event loop watches (``loop.add_reader``: no reader thread, no
blocking read with a timeout to poll a stop flag); an unplug shows as EIO on that descriptor
and a replug as a new ``/dev/hidrawN``, found again by its USB ids in sysfs; and access is one
udev rule on the hidraw node (group ``plugdev``), no raw USB device permissions. The report
bytes are the same either way (drivers/buzz_report.py). So pyusb, once declared for this, is
not a dependency: nothing uses it.

Timing, honestly: the report carries no time. The host polls the controller's interrupt
endpoint every ``bInterval`` = 10 ms, so a report's arrival places its presses only within
that interval; presses of several handsets in one report arrive together and are a tie. The
driver stamps each report with ``clock()`` when the loop reads it (reports read in one go,
after a stall of the loop, share that stamp: equal times, judged as ties, never reordered;
console/sources/buzz.py then dates them at the stall's start, as unsure).
The source must declare ``resolution_us`` of at least the poll interval to the referee; the
interval the kernel reports in sysfs is read at connect and a finer declaration is reported.

Contract: ``BuzzLink(port, on_report=...)``; ``start(loop)`` opens the node (``port``, or the
first Buzz! found under ``/sys/class/hidraw`` when ``port`` is ``""``) or keeps retrying every
``retry_interval`` until it appears; ``on_report(handsets, at_ns)`` is called on the loop for
every report with the handsets whose selected buttons went down in it (possibly none: a
report still tells that nothing else happened before its poll); ``on_status(state, detail)``
says ``"connected"``/``"disconnected"`` on change, with the reason; ``set_lamps(on, blink)``
lights the red lamps (bit i: handset i; blinking lamps blink in phase, 250 ms on and off, like
the button box's firmware) and is kept across a replug; ``close()`` stops everything.
A configured node that is not a Buzz! is refused with its USB ids named.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from drivers.buzz_report import (
    POLL_INTERVAL_US,
    PRODUCTS,
    REPORT_SIZE,
    VENDOR_SONY,
    buttons,
    lamp_report,
    newly_pressed,
    selection,
)
from drivers.link_state import LinkState

__all__ = ["BuzzDevice", "BuzzError", "BuzzLink", "find_buzz"]

log = logging.getLogger(__name__)

BLINK_HALF_PERIOD_S = 0.25  # the firmware's blink: bit 18 of a µs timer, 262 ms on, 262 ms off
_USB_BUS = 0x0003  # HID_ID's bus field for USB
_READ_CHUNK = 4096


class BuzzError(Exception):
    """The configured node cannot be used (not found, not a Buzz!, no permission)."""


@dataclass(frozen=True)
class BuzzDevice:
    """A hidraw node of a Buzz! controller, as found in sysfs."""

    path: str  # /dev/hidrawN
    product: str  # PRODUCTS' name
    interval_us: int | None  # the endpoint's poll interval the kernel reports (None: unknown)


def _hid_id(sysfs: Path, node: str) -> tuple[int, int, int] | None:
    """(bus, vendor, product) of hidraw `node` from sysfs, None if it has no such entry."""
    try:
        uevent = (sysfs / "class" / "hidraw" / node / "device" / "uevent").read_text()
    except OSError:
        return None
    match = re.search(r"^HID_ID=([0-9A-Fa-f]+):([0-9A-Fa-f]+):([0-9A-Fa-f]+)$", uevent, re.MULTILINE)
    if match is None:
        return None
    bus, vendor, product = (int(part, 16) for part in match.groups())
    return bus, vendor, product


def _interval_us(sysfs: Path, node: str) -> int | None:
    """The interrupt IN endpoint's poll interval, from the USB interface above the HID device
    (its ``ep_8x/interval`` reads e.g. ``10ms`` or ``125us``)."""
    interface = (sysfs / "class" / "hidraw" / node / "device").resolve().parent
    for interval in sorted(interface.glob("ep_8*/interval")):
        with contextlib.suppress(OSError):
            match = re.fullmatch(r"(\d+)([mu])s", interval.read_text().strip())
            if match:
                return int(match.group(1)) * (1000 if match.group(2) == "m" else 1)
    return None


def _node_number(node: str) -> int:
    digits = node.removeprefix("hidraw")
    return int(digits) if digits.isdigit() else 1 << 30


def find_buzz(sysfs: str | Path = "/sys", devdir: str | Path = "/dev") -> BuzzDevice | None:
    """The first Buzz! controller among the hidraw nodes (lowest number first), or None."""
    root = Path(sysfs)
    try:
        nodes = sorted((p.name for p in (root / "class" / "hidraw").iterdir()), key=_node_number)
    except OSError:
        return None
    for node in nodes:
        ids = _hid_id(root, node)
        if ids is not None and ids[0] == _USB_BUS and ids[1] == VENDOR_SONY and ids[2] in PRODUCTS:
            return BuzzDevice(str(Path(devdir) / node), PRODUCTS[ids[2]], _interval_us(root, node))
    return None


def _describe(path: str, sysfs: Path) -> BuzzDevice:
    """The configured node: refused if sysfs says it is some other HID device."""
    node = Path(os.path.realpath(path)).name
    ids = _hid_id(sysfs, node) if node.startswith("hidraw") else None
    if ids is None:  # not a hidraw node known to sysfs (a udev symlink target elsewhere, a test's pty)
        return BuzzDevice(path, "Sony Buzz!", None)
    _, vendor, product = ids
    if vendor != VENDOR_SONY or product not in PRODUCTS:
        known = ", ".join(f"{VENDOR_SONY:04x}:{p:04x}" for p in PRODUCTS)
        raise BuzzError(f"{path} is USB device {vendor:04x}:{product:04x}, not a Sony Buzz! ({known})")
    return BuzzDevice(path, PRODUCTS[product], _interval_us(sysfs, node))


class BuzzLink:
    """One Buzz! receiver's four handsets: presses in, red lamps out (see the module docstring)."""

    def __init__(
        self,
        port: str = "",
        *,
        on_report: Callable[[tuple[int, ...], int], None],
        on_status: Callable[[str, str], None] | None = None,
        on_error: Callable[[str], None] | None = None,
        buzzer_buttons: tuple[str, ...] = ("red",),
        resolution_us: int = POLL_INTERVAL_US,
        retry_interval: float = 1.0,
        sysfs: str | Path = "/sys",
        devdir: str | Path = "/dev",
        clock: Callable[[], int] = time.monotonic_ns,
    ) -> None:
        self._port = port
        self._selected = selection(buzzer_buttons)
        self._on_report = on_report
        self._on_status = on_status or (lambda state, detail: log.info("buzz: %s (%s)", state, detail))
        self._on_error = on_error or (lambda message: log.warning("buzz: %s", message))
        self._resolution_us = resolution_us
        self._retry_interval = retry_interval
        self._sysfs = Path(sysfs)
        self._devdir = Path(devdir)
        self._clock = clock
        self._loop: asyncio.AbstractEventLoop | None = None
        self._fd: int | None = None
        self._device: BuzzDevice | None = None
        self._buffer = b""  # a partial report (a byte stream may split one; hidraw never does)
        self._state = 0  # the button bits of the last report
        self._status: tuple[str, str] | None = None
        self._retry: asyncio.TimerHandle | None = None
        self._blinker: asyncio.TimerHandle | None = None
        self._on = 0
        self._blink = 0
        self._phase = True  # blinking lamps lit in this half-period
        self._written: int | None = None  # the lamp bits last written to this connection
        self.reports = 0  # input reports decoded (for tests and the log)

    @property
    def connected(self) -> bool:
        return self._fd is not None

    @property
    def device(self) -> BuzzDevice | None:
        """The node in use while connected."""
        return self._device

    # ------------------------------------------------------------------ life cycle

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Open the node now, or report why not and retry every ``retry_interval``."""
        self._loop = loop
        self._connect()

    def close(self) -> None:
        for handle in (self._retry, self._blinker):
            if handle is not None:
                handle.cancel()
        self._retry = self._blinker = None
        self._drop()
        self._loop = None

    def _connect(self) -> None:
        self._retry = None
        if self._loop is None:
            return
        try:
            device = self._locate()
            fd = os.open(device.path, os.O_RDWR | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        except (BuzzError, OSError) as exc:
            self._report_status(LinkState.DISCONNECTED, self._why(exc))
            self._retry = self._loop.call_later(self._retry_interval, self._connect)
            return
        self._fd, self._device = fd, device
        self._buffer, self._state, self._written = b"", 0, None
        self._loop.add_reader(fd, self._on_readable)
        poll = (f"polled every {device.interval_us / 1000:g} ms" if device.interval_us
                else "poll interval unknown")
        self._report_status(LinkState.CONNECTED, f"{device.product} at {device.path}, {poll}")
        if device.interval_us is not None and device.interval_us > self._resolution_us:
            self._on_error(f"{device.path} is polled every {device.interval_us / 1000:g} ms but the source "
                           f"declares resolution_us = {self._resolution_us}: presses closer than the poll "
                           f"interval cannot be told apart; declare resolution_us = {device.interval_us}")
        self._write_lamps()  # a replugged controller comes up dark: show what the game says

    def _locate(self) -> BuzzDevice:
        if self._port:
            return _describe(self._port, self._sysfs)
        found = find_buzz(self._sysfs, self._devdir)
        if found is None:
            known = ", ".join(f"{VENDOR_SONY:04x}:{p:04x}" for p in PRODUCTS)
            raise BuzzError(f"no Sony Buzz! ({known}) among {self._sysfs / 'class' / 'hidraw'}")
        return found

    def _why(self, exc: BuzzError | OSError) -> str:
        if isinstance(exc, BuzzError):
            return str(exc)
        where = exc.filename or self._port
        if exc.errno == errno.EACCES:
            return f"cannot open {where}: permission denied (the console's user needs the hidraw node: " \
                   f"group plugdev and the udev rule)"
        if exc.errno == errno.ENOENT:
            return f"{where} does not exist (unplugged?)"
        return f"cannot open {where}: {exc.strerror or exc}"

    def _drop(self) -> None:
        fd, self._fd, self._device = self._fd, None, None
        if fd is None:
            return
        if self._loop is not None:
            self._loop.remove_reader(fd)
        with contextlib.suppress(OSError):
            os.close(fd)

    def _lost(self, reason: str) -> None:
        path = self._device.path if self._device else self._port
        self._drop()
        self._report_status(LinkState.DISCONNECTED, f"{path}: {reason}")
        if self._loop is not None and self._retry is None:
            self._retry = self._loop.call_later(self._retry_interval, self._connect)

    def _report_status(self, state: LinkState, detail: str) -> None:
        if self._status != (state, detail):
            self._status = (state, detail)
            self._on_status(state, detail)

    # ------------------------------------------------------------------ presses

    def _on_readable(self) -> None:
        at = self._clock()  # the reports' arrival: all the device tells about their time
        fd = self._fd
        if fd is None:
            return
        data = b""
        while True:
            try:
                chunk = os.read(fd, _READ_CHUNK)
            except BlockingIOError:
                break
            except OSError as exc:  # EIO / ENODEV: unplugged (the pty's master closed, in tests)
                self._deliver(data, at)
                self._lost(exc.strerror or str(exc))
                return
            if not chunk:
                self._deliver(data, at)
                self._lost("end of file")
                return
            data += chunk
        self._deliver(data, at)

    def _deliver(self, data: bytes, at: int) -> None:
        data = self._buffer + data
        whole = len(data) - len(data) % REPORT_SIZE
        self._buffer = data[whole:]
        for i in range(0, whole, REPORT_SIZE):
            after = buttons(data[i:i + REPORT_SIZE])
            pressed = newly_pressed(self._state, after, self._selected)
            self._state = after
            self.reports += 1
            try:
                self._on_report(pressed, at)
            except Exception:  # a consumer's bug must not take the controller down
                log.exception("buzz: on_report failed")

    # ------------------------------------------------------------------ lamps

    def set_lamps(self, on: int, blink: int) -> None:
        """Handset i's red lamp lit (bit i of `on`) or blinking (bit i of `blink`, which wins)."""
        self._on, self._blink = on, blink
        if blink and self._blinker is None and self._loop is not None:
            self._phase = True
            self._blinker = self._loop.call_later(BLINK_HALF_PERIOD_S, self._toggle)
        self._write_lamps()

    def _toggle(self) -> None:
        self._blinker = None
        if not self._blink or self._loop is None:
            return
        self._phase = not self._phase
        self._write_lamps()
        self._blinker = self._loop.call_later(BLINK_HALF_PERIOD_S, self._toggle)

    def _write_lamps(self) -> None:
        lit = (self._on & ~self._blink) | (self._blink if self._phase else 0)
        if self._fd is None or lit == self._written:
            return
        try:
            # A SET_REPORT on the control endpoint: the kernel returns once the controller took
            # it (about a USB frame), short enough to do on the loop and keep writes in order.
            os.write(self._fd, lamp_report(lit))
        except OSError as exc:
            self._lost(f"lamp write failed: {exc.strerror or exc}")
            return
        self._written = lit
