"""Host side of the button MCU link: a thin asyncio transport for :class:`McuSession` on a
serial port (pad edges, lamps, and the readings of the top's angle sensor).

The protocol (handshake, clock sync, ping schedule, sequence gaps, watermarks, silence) is
:class:`~drivers.mcu_session.McuSession`'s, which does no I/O; this module opens the port,
hands the session what it reads together with ``time.monotonic_ns()`` (the one timebase: it
stamps round trips, presses and deadlines alike), writes what the session returns, keeps one
timer armed for :meth:`McuSession.next_deadline`, and calls the consumer's callbacks.

Latency: the serial fd is watched with ``loop.add_reader``; the reader callback decodes the
bytes and calls ``on_edge`` synchronously, and :meth:`McuLink.set_lamps` writes straight to
the fd, so a press frame in -> lamp frame out takes one callback, no queue and no task hop.

Port life cycle: open (pyserial, non-blocking, exclusive lock, low-latency mode where the
driver has one: see :func:`open_port`) and start a session round;
on EIO / hang-up / end of file / write failure, or when the session gives up on a silent
device, close the port and reopen it every ``reconnect_interval``.  The port stays open
while the device does not answer the handshake: closing it would toggle DTR and reset many
USB boards, and they would never get to answer.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import time
from collections.abc import Callable

import serial

from drivers.clock_sync import ClockModel
from drivers.mcu_session import (
    AngleReading,
    HeldPads,
    McuSession,
    McuStats,
    PadEdge,
    Problem,
    SessionOutput,
    StatusChanged,
    Watermark,
)

__all__ = ["AngleReading", "HeldPads", "McuLink", "McuStats", "PadEdge", "Watermark", "open_port"]

log = logging.getLogger(__name__)

_READ_CHUNK = 4096
# A drain reads at most this many chunks (a second of the line at 115200 baud is 3): a box
# that keeps sending while it is read must not hold the loop.
_DRAIN_CHUNKS = 16


def open_port(path: str, baudrate: int) -> serial.Serial:
    """Open the MCU's port non-blocking and exclusively, and ask its driver for low latency.

    A USB-serial bridge holds what the box sends until its latency timer runs out: 16 ms by
    default on an FTDI chip (a genuine Arduino Nano's), 1 ms with the low-latency flag. The
    stamps keep the judging fair either way; the lamp and the displays would be 16 ms late.
    A port whose driver has no such setting (a pty, a native USB CDC board, which has no
    timer) is used as it is. Raises OSError (serial.SerialException) if it cannot be opened.
    """
    port = serial.Serial(path, baudrate, timeout=0, exclusive=True)
    try:
        port.set_low_latency_mode(True)
    except (ValueError, OSError, NotImplementedError) as exc:  # a refused ioctl is ValueError
        # A pty (the simulated box) never has it; a real port that lacks it is worth a line.
        level = logging.DEBUG if os.path.realpath(path).startswith("/dev/pts/") else logging.INFO
        log.log(level, "%s: no low-latency mode (%s); used as it is", path, exc)
    except BaseException:
        port.close()
        raise
    return port


def _ns(seconds: float) -> int:
    return round(seconds * 1_000_000_000)


class McuLink:
    """The MCU button link over a serial port: handshake, clock sync, timestamped pad edges,
    lamps; survives unplug/replug.

    Callbacks run on the event loop thread, synchronously from the serial reader; they must
    be quick and must not block.  An exception raised by a callback is logged and does not
    disturb the link.

    * ``on_edge(edge)``: a PRESS or RELEASE scan; ``edge.at_ns`` is the MCU stamp mapped to
      host monotonic ns.  Edges come in device order; their ``at_ns`` follow the MCU stamps.
    * ``on_watermark(mark)``: every press/release stamped up to host time ``mark.ns`` has
      been delivered (the device sends in timestamp order, so any PRESS/RELEASE/HEARTBEAT
      stamped t vouches for everything up to t).  Never decreases.  Called after every
      edge (with at least the edge's ``at_ns``) and whenever a HEARTBEAT advances it.  With
      ``mark.lost_from_ns``, presses stamped after it up to the mark may be missing (frames
      lost and not sent again) or placed at their arrival (the device's clock could not be
      trusted): decisions over that span are not guaranteed.
    * ``on_angle(reading)`` (optional): an ANGLE frame, its stamp mapped like an edge's.
      Readings that arrive before the clock is synchronised (only right after a device
      restart) are dropped: a stale angle is worth nothing.  They do not move the watermark.
      With ``angle_rate_hz``, at most that many a second are handed on (the table's rate; the
      rest are dropped before their stamps are mapped: `McuSession`).
    * ``on_held(held)`` (optional): a HEARTBEAT's ``HeldPads``, the pads down right then.
    * ``on_status(state, detail)``: a `LinkState` (connected, disconnected, incompatible,
      resyncing), with an English sentence naming the port.  Reported on change only.
    * ``on_error(message)``: one English sentence per protocol problem (bad frame, lost
      frames, device restart...), at most five a second, the rest as a count.

    Without callbacks for status and errors, those are logged.
    """

    def __init__(
        self,
        port: str,
        *,
        name: str = "mcu",
        baudrate: int = 115200,
        on_edge: Callable[[PadEdge], None],
        on_watermark: Callable[[Watermark], None] | None = None,
        on_angle: Callable[[AngleReading], None] | None = None,
        angle_rate_hz: float = 0.0,
        on_held: Callable[[HeldPads], None] | None = None,
        on_status: Callable[[str, str], None] | None = None,
        on_error: Callable[[str], None] | None = None,
        reconnect_interval: float = 0.5,
        ping_interval: float = 1.0,
        clock: Callable[[], int] = time.monotonic_ns,
        handshake_timeout: float = 1.0,
        silence_timeout: float = 1.0,
        check_clock: bool = True,
    ) -> None:
        self._port = port
        self._name = name
        self._baudrate = baudrate
        self._on_edge = on_edge
        self._on_watermark = on_watermark
        self._on_angle = on_angle
        self._on_held = on_held
        self._on_status = on_status
        self._on_error = on_error
        self._reconnect_interval = reconnect_interval
        self._clock = clock
        self._session = McuSession(
            port,
            ping_interval_ns=_ns(ping_interval),
            handshake_timeout_ns=_ns(handshake_timeout),
            silence_timeout_ns=_ns(silence_timeout),
            reconnect_interval_ns=_ns(reconnect_interval),
            angles=on_angle is not None,
            angle_interval_us=int(1e6 / angle_rate_hz) if angle_rate_hz > 0 else 0,
            check_clock=check_clock,
        )

        self._loop: asyncio.AbstractEventLoop | None = None
        self._serial: serial.Serial | None = None
        self._fd: int | None = None
        self._tx = bytearray()  # bytes the fd would not take yet (normally always empty)
        # Set when the port must be closed; to the session's last output if the transport
        # lost the port (handed on once the callback that noticed it has finished).
        self._over: asyncio.Future[SessionOutput | None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_due: int | None = None  # the deadline (host ns) the timer is armed for

    # -- public API ------------------------------------------------------------------------

    @property
    def port(self) -> str:
        return self._port

    @property
    def name(self) -> str:
        return self._name

    @property
    def connected(self) -> bool:
        """True between a compatible HELLO and the loss of the port."""
        return self._session.connected

    @property
    def clock(self) -> ClockModel:
        """The current session's clock model (reset, not replaced, on every reconnect)."""
        return self._session.clock

    @property
    def stats(self) -> McuStats:
        """Counters since the link was created (for diagnostics)."""
        return self._session.stats

    def set_lamps(self, on: int, blink: int) -> None:
        """Set the lamp state (bitmasks of pad indices; ``blink`` wins over ``on``).

        Written to the port immediately when connected; remembered and re-sent on every
        (re)connection otherwise.  Raises ValueError for masks outside 16 bits.
        """
        frame = self._session.lamps(on, blink)
        if frame is not None:
            self._write(frame)

    async def run(self) -> None:
        """Keep the link up forever; cancel the task to close the port and stop."""
        self._loop = asyncio.get_running_loop()
        try:
            while True:
                await self._round()
                await asyncio.sleep(self._reconnect_interval)
        finally:
            self._close()

    # -- one opening of the port -----------------------------------------------------------

    async def _round(self) -> None:
        """One opening of the port, until it is lost (returns) or the task is cancelled."""
        loop = self._loop
        assert loop is not None
        try:
            self._open()
        except OSError as exc:  # serial.SerialException is an OSError
            self._apply(self._session.open_failed(self._open_failure(exc)))
            return
        over: asyncio.Future[SessionOutput | None] = loop.create_future()
        self._over = over
        try:
            self._apply(self._session.opened(self._clock()))
            last = await over
            if last is not None:
                self._apply(last)
        finally:
            self._close()

    def _open(self) -> None:
        port = open_port(self._port, self._baudrate)
        loop = self._loop
        assert loop is not None
        self._serial = port
        self._fd = port.fileno()
        self._tx.clear()
        try:
            loop.add_reader(self._fd, self._on_readable)
        except BaseException:
            self._close()
            raise

    def _open_failure(self, exc: OSError) -> str:
        if exc.errno == errno.ENOENT:
            why = "it does not exist (is the button box plugged in?)"
        elif exc.errno == errno.EACCES:
            why = "permission denied (is the console user in the dialout group?)"
        elif exc.errno in (errno.EBUSY, errno.EWOULDBLOCK):
            why = "it is in use by another program"
        else:
            why = str(exc)
        return f"Cannot open the MCU port {self._port}: {why}; retrying every {self._reconnect_interval:g} s."

    def _close(self) -> None:
        """Stop watching and close the port (idempotent, never raises)."""
        self._stop_io()
        # Cancelled while open: end the session's round quietly (nobody is listening now).
        self._session.lost("the link was stopped", self._clock())
        port = self._serial
        self._serial = None
        self._fd = None
        self._tx.clear()
        if port is not None:
            try:
                port.close()
            except OSError as exc:  # closing a vanished device may fail; it is closed anyway
                log.debug("%s: closing %s: %s", self._name, self._port, exc)

    def _stop_io(self) -> None:
        """Stop reading, writing and the timer at once (a hung-up fd is readable forever)."""
        loop, fd = self._loop, self._fd
        if loop is not None and fd is not None:
            loop.remove_reader(fd)
            loop.remove_writer(fd)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = self._timer_due = None

    def _port_lost(self, reason: str) -> None:
        """The port failed: end the session's round now (no more lamps are written), and let
        ``_round`` hand on its last words after what the current callback is handing on."""
        over = self._over
        if over is None or over.done():
            return
        self._stop_io()
        over.set_result(self._session.lost(reason, self._clock()))

    # -- the session's output --------------------------------------------------------------

    def _apply(self, out: SessionOutput) -> None:
        """Write, then hand on, then close (SessionOutput's order), then re-arm the timer."""
        for frame in out.writes:
            self._write(frame)
        for item in out.inputs:
            # Exact type tests, most frequent first: this is the press path.  A failing
            # consumer must not kill the reader: the rest (other pads' presses) still counts.
            try:
                if type(item) is PadEdge:
                    self._on_edge(item)
                elif type(item) is Watermark:
                    if self._on_watermark is not None:
                        self._on_watermark(item)
                elif type(item) is AngleReading:
                    if self._on_angle is not None:
                        self._on_angle(item)
                elif type(item) is HeldPads:
                    if self._on_held is not None:
                        self._on_held(item)
                elif isinstance(item, StatusChanged):
                    self._status(item)
                elif isinstance(item, Problem):
                    self._problem(item)
            except Exception:
                log.exception("%s: a callback failed on %r", self._name, item)
        if out.close:
            self._stop_io()
            if self._over is not None and not self._over.done():
                self._over.set_result(None)
        elif self._fd is not None:
            self._arm()

    def _status(self, status: StatusChanged) -> None:
        if self._on_status is None:
            log.info("%s: %s: %s", self._name, status.state, status.detail)
        else:
            self._on_status(status.state, status.detail)

    def _problem(self, problem: Problem) -> None:
        if self._on_error is None:
            log.warning("%s: %s", self._name, problem.message)
        else:
            self._on_error(problem.message)

    def _arm(self) -> None:
        """Keep the timer armed for the session's next deadline.

        Only an earlier deadline re-arms it: the deadline moves later with every byte read
        (silence), and re-arming on each read would cost a timer per frame; a timer that
        fires early finds nothing due and is armed again for the then-next deadline.
        """
        due = self._session.next_deadline()
        if due is None or (self._timer_due is not None and due >= self._timer_due):
            return
        loop = self._loop
        assert loop is not None
        if self._timer is not None:
            self._timer.cancel()
        self._timer_due = due
        self._timer = loop.call_later(max(0.0, (due - self._clock()) / 1e9), self._on_timer)

    def _on_timer(self) -> None:
        self._timer = self._timer_due = None
        # What waited on the port while the console was held up (a stall of the Pi, a busy
        # loop) is read and handed on first: the box is judged silent only on its own evidence
        # (nothing waiting after a read), never because the console was away; a due timer may
        # run before the port's reader after a stall (uvloop runs timers first).
        self.drain()
        if self._fd is None:
            return  # reading lost the port
        # Read the clock right before the call: a PING it returns is stamped with this time.
        self._apply(self._session.on_timer(self._clock(), backlog=bool(self._tx)))

    def drain(self) -> None:
        """Read and hand on everything waiting on the port now (the console calls this before
        it judges a deadline, so that a press made in time is never left unread behind it)."""
        for _ in range(_DRAIN_CHUNKS):
            if not self._read(readable=False):
                return

    # -- I/O -------------------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        """Write now; only if the kernel buffer is full, queue the rest behind a writer."""
        fd = self._fd
        if fd is None or self._over is None or self._over.done():
            return
        if self._tx:  # keep order behind bytes already waiting
            self._tx += data
            return
        try:
            written = os.write(fd, data)
        except BlockingIOError:
            written = 0
        except OSError as exc:
            self._port_lost(f"write failed: {exc.strerror or exc}")
            return
        if written < len(data):
            self._tx += data[written:]
            assert self._loop is not None
            self._loop.add_writer(fd, self._on_writable)

    def _on_writable(self) -> None:
        fd = self._fd
        if fd is None:
            return
        try:
            written = os.write(fd, self._tx)
        except BlockingIOError:
            return
        except OSError as exc:
            self._port_lost(f"write failed: {exc.strerror or exc}")
            return
        del self._tx[:written]
        if not self._tx and self._loop is not None:
            self._loop.remove_writer(fd)

    def _on_readable(self) -> None:
        self._read(readable=True)

    def _read(self, *, readable: bool) -> bool:
        """Read what the port holds (one chunk) and hand it on; False when nothing was read.
        `readable`: the loop said the port is readable, so no bytes at all is a hang-up (a
        tty with VMIN = 0 also reads 0 bytes when it merely has none, as in a drain)."""
        fd = self._fd
        if fd is None:
            return False
        try:
            data = os.read(fd, _READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return False
        except OSError as exc:  # EIO: the device went away
            self._port_lost(f"read failed: {exc.strerror or exc}")
            return False
        if not data:
            if readable:
                self._port_lost("the port reported end of file")
            return False
        # The arrival is stamped right after the read, never before it: every byte read was
        # there by then, so this is the receive end of PING/HELLO round trips and each frame's
        # arrival. Stamped before the read, a hold-up of the console between the two (a
        # preemption on a busy machine, another thread holding the GIL) made the frames that
        # came meanwhile look stamped after they arrived, and an exact box was distrusted.
        now = self._clock()
        self._apply(self._session.receive(data, now))
        return True
