"""A fake Sony Buzz! receiver on a pseudo-terminal: the real report bytes, for tests and demos.

Contract: `FakeBuzz(link_path=...)` plugs in on `start()`: a pty whose slave end (or the
symlink `link_path` pointing at it, as udev would make one) the driver opens as if it were
the hidraw node. `press(handset, colour)` / `release(...)` / `buttons(bits)` write the 5-byte
input report the controller would send (drivers/buzz_report.py), and return the host time it
was written; the 8-byte lamp writes the driver makes are decoded into `lamps` (bit i: handset
i's red lamp) and logged in `lamp_log`. `unplug()` closes the device side (the driver reads
EIO or end of file, as from a hidraw node whose controller went away) and removes the link;
`replug()` makes a new pty and repoints the link.

The pty is raw in both directions (no line discipline: 0x7f is not an erase, bytes pass as
they are). A pty is a byte stream, so reports written back to back may reach the driver in
one read; the driver splits by report size, which a real hidraw node (one report per read)
needs no help with.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
import tty
from collections.abc import Callable
from types import TracebackType

from drivers.buzz_report import HANDSETS, button_bit, input_report

__all__ = ["FakeBuzz"]

_LAMP_WRITE = 8  # report number + the 7-byte output report


class FakeBuzz:
    """See the module docstring."""

    def __init__(self, *, link_path: str | None = None, clock: Callable[[], int] = time.monotonic_ns) -> None:
        self._link_path = link_path
        self._clock = clock
        self._lock = threading.Lock()
        self._master: int | None = None
        self._slave: int | None = None
        self._slave_path: str | None = None
        self._bits = 0
        self._pending = b""
        self._cond = threading.Condition()
        self.lamps = 0
        self.lamp_log: list[tuple[int, int]] = []  # (host ns received, lit bits)
        self.bad_writes: list[bytes] = []  # lamp writes that were not a Buzz! output report
        self._thread: threading.Thread | None = None
        self._running = False

    # ------------------------------------------------------------------ plugging

    def start(self) -> FakeBuzz:
        self._plug()
        self._running = True
        self._thread = threading.Thread(target=self._serve, name="fake-buzz", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._running = False
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        self._unplug()

    def __enter__(self) -> FakeBuzz:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    @property
    def port(self) -> str:
        """The path the driver opens: `link_path` if given, else the pty's slave."""
        if self._link_path is not None:
            return self._link_path
        if self._slave_path is None:
            raise RuntimeError("the fake Buzz! is unplugged")
        return self._slave_path

    @property
    def slave_path(self) -> str | None:
        return self._slave_path

    def unplug(self) -> None:
        self._unplug()

    def replug(self) -> None:
        """Plugged back in: a new node, buttons up, lamps dark (the controller powered up)."""
        self._plug()
        with self._cond:
            self.lamps = 0
            self._cond.notify_all()

    def _plug(self) -> None:
        self._unplug()
        master, slave = os.openpty()
        tty.setraw(master)
        tty.setraw(slave)
        os.set_blocking(master, False)
        path = os.ttyname(slave)
        with self._lock:
            self._master, self._slave, self._slave_path = master, slave, path
            self._bits, self._pending = 0, b""
        if self._link_path is not None:
            tmp = f"{self._link_path}.tmp{os.getpid()}"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            os.symlink(path, tmp)
            os.replace(tmp, self._link_path)  # atomic: never a missing or half-made link

    def _unplug(self) -> None:
        with self._lock:
            master, slave = self._master, self._slave
            self._master = self._slave = self._slave_path = None
        if self._link_path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._link_path)
        for fd in (master, slave):
            if fd is not None:
                os.close(fd)

    # ------------------------------------------------------------------ device -> host

    def press(self, handset: int, colour: str = "red") -> int:
        return self.buttons(self._bits | button_bit(handset, colour))

    def release(self, handset: int, colour: str = "red") -> int:
        return self.buttons(self._bits & ~button_bit(handset, colour))

    def press_together(self, *handsets: int, colour: str = "red") -> int:
        """Several handsets' buttons down in one report (pressed within one poll interval)."""
        bits = self._bits
        for h in handsets:
            bits |= button_bit(h, colour)
        return self.buttons(bits)

    def buttons(self, bits: int) -> int:
        """Send the report with exactly `bits` down; the host time it was written."""
        return self.send_raw(input_report(bits), bits)

    def send_raw(self, data: bytes, bits: int | None = None) -> int:
        with self._lock:
            if self._master is None:
                raise RuntimeError("the fake Buzz! is unplugged")
            if bits is not None:
                self._bits = bits
            at = self._clock()
            os.write(self._master, data)
            return at

    # ------------------------------------------------------------------ host -> device

    def wait_lamps(self, predicate: Callable[[int], bool], timeout: float) -> int | None:
        """Wait until the lamps satisfy `predicate`; their bits, or None on timeout."""
        with self._cond:
            if self._cond.wait_for(lambda: predicate(self.lamps), timeout):
                return self.lamps
            return None

    def _serve(self) -> None:
        while self._running:
            with self._lock:
                master = self._master
            if master is None:
                time.sleep(0.01)
                continue
            try:
                ready, _, _ = select.select([master], [], [], 0.02)
                data = os.read(master, 4096) if ready else b""
            except OSError:  # unplugged under us, or the host side hung up: wait for a replug
                time.sleep(0.01)
                continue
            if data:
                self._lamp_bytes(data)

    def _lamp_bytes(self, data: bytes) -> None:
        now = self._clock()
        self._pending += data
        while len(self._pending) >= _LAMP_WRITE:
            write, self._pending = self._pending[:_LAMP_WRITE], self._pending[_LAMP_WRITE:]
            framing = write[:2] == b"\x00\x00" and write[6:] == b"\x00\x00"
            if not framing or any(b not in (0, 0xFF) for b in write[2:6]):
                self.bad_writes.append(write)
                continue
            lit = sum(1 << h for h in range(HANDSETS) if write[2 + h] == 0xFF)
            with self._cond:
                self.lamps = lit
                self.lamp_log.append((now, lit))
                self._cond.notify_all()
