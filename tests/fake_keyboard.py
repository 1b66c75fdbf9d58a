"""A keyboard for tests on a machine without /dev/uinput: real `struct input_event` records
written into a pseudo-terminal, read through a stable link the way /dev/input/by-id/ links
name real devices (a `kind = "stream"` key device in config).

`unplug()` closes the pty's master side (the reader's next read fails, as a pulled USB device's
does with ENODEV) and removes the link; `plug()` makes a new pty and points the link at it.
"""

from __future__ import annotations

import os
import time
import tty
from pathlib import Path

from drivers.evdev_keys import EV_KEY, EV_SYN, KEY_DOWN, KEY_UP, pack_event

SYN_REPORT = 0


class FakeKeyboard:
    def __init__(self, link: Path) -> None:
        self.link = link
        self._master: int | None = None
        self._slave: int | None = None

    def plug(self) -> None:
        assert self._master is None
        master, slave = os.openpty()
        tty.setraw(slave)  # no line discipline: the records pass byte for byte
        self._master, self._slave = master, slave
        tmp = self.link.with_name(self.link.name + ".new")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(os.ttyname(slave))
        tmp.replace(self.link)

    def release_slave(self) -> None:
        """Close this side's slave fd once the reader has its own (else the pty outlives unplug)."""
        if self._slave is not None:
            os.close(self._slave)
            self._slave = None

    def unplug(self) -> None:
        self.release_slave()
        if self._master is not None:
            os.close(self._master)
            self._master = None
        self.link.unlink(missing_ok=True)

    def write(self, data: bytes) -> None:
        assert self._master is not None
        os.write(self._master, data)

    def event(self, type_: int, code: int, value: int, at_ns: int | None = None) -> bytes:
        return pack_event(time.monotonic_ns() if at_ns is None else at_ns, type_, code, value)

    def key(self, code: int, value: int = KEY_DOWN, at_ns: int | None = None) -> int:
        """One key event and the SYN_REPORT after it, as the kernel sends them; its time (to
        the microsecond, as the record holds it)."""
        at = (time.monotonic_ns() if at_ns is None else at_ns) // 1000 * 1000
        self.write(self.event(EV_KEY, code, value, at) + self.event(EV_SYN, SYN_REPORT, 0, at))
        return at

    def tap(self, code: int, at_ns: int | None = None) -> int:
        at = self.key(code, KEY_DOWN, at_ns)
        self.key(code, KEY_UP, at + 80_000_000)
        return at

    def close(self) -> None:
        self.unplug()
