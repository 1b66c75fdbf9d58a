"""Host side of the button MCU link: serial port, handshake, clock sync, pad edges, lamps,
and the readings of the top's angle sensor.

Fairness: a :class:`PadEdge` carries the time at which the MCU *scanned* the press
(``at_ns``, the MCU's own stamp mapped onto host ``time.monotonic_ns`` by a
:class:`~drivers.clock_sync.ClockModel`), never the time the frame happened to arrive.

Latency: the serial fd is watched with ``loop.add_reader``; the reader callback decodes the
bytes and calls ``on_edge`` synchronously, and :meth:`McuLink.set_lamps` writes straight to
the fd, so a press frame in -> lamp frame out takes one callback, no queue and no task hop.

Session life cycle (one per opening of the port):

1. open the port (pyserial, non-blocking, exclusive lock), send HELLO_REQUEST;
2. HANDSHAKE: wait for HELLO, re-asking every ``handshake_timeout`` without closing the port
   (closing would toggle DTR and reset many USB boards, and they would never get to answer);
   a HELLO of another protocol version makes the session INCOMPATIBLE (frames are ignored
   until a compatible HELLO, i.e. new firmware, arrives);
3. CONNECTED: the HELLO round trip seeds the clock model, a PING goes out at once and then
   every ``ping_interval``; PRESS/RELEASE become edges, HEARTBEATs advance the watermark;
4. on EIO / hang-up / end of file / write failure / ``silence_timeout`` without any frame, the
   port is closed and reopened every ``reconnect_interval``.  Each session starts with a fresh
   timestamp unwrapper and clock model: the device may have restarted its timer meanwhile.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

import serial

from drivers.clock_sync import ClockModel
from drivers.report_limit import ReportLimit
from firmware_proto import (
    PROTOCOL_VERSION,
    STAMP_MODULUS,
    Angle,
    FrameDecoder,
    Heartbeat,
    Hello,
    HelloRequest,
    Lamps,
    Message,
    Ping,
    Pong,
    Press,
    ProtocolError,
    Release,
    TimestampUnwrapper,
    encode,
)

__all__ = ["AngleReading", "McuLink", "McuStats", "PadEdge"]

log = logging.getLogger(__name__)

_SEQ_MODULUS = 1 << 16
_PING_ID_MODULUS = 1 << 16
# Outstanding pings kept for matching; an unanswered ping is forgotten after this many newer.
_MAX_OUTSTANDING_PINGS = 8
# Presses that arrive while the clock model is unseeded (only right after a device restart)
# wait for the HELLO round trip; a device that never answers is dropped with the session.
_MAX_PENDING_EDGES = 64
# An unsolicited HELLO whose stamp continues the current timeline by less than this is a late
# answer to a repeated HELLO_REQUEST, not a restart (a restarted timer starts near zero).
_HELLO_CONTINUITY_US = 2_000_000
_READ_CHUNK = 4096
# A line full of noise yields a bad frame every few bytes: at most this many problems are
# reported one by one per second, the rest as a count (drivers/report_limit.py).
_REPORTS_PER_SECOND = 5


@dataclass(frozen=True, slots=True)
class PadEdge:
    """One scan's worth of pads changing state, timed by the MCU."""

    pads: tuple[int, ...]  # pad indices (0-based) in this scan
    pressed: bool  # True for PRESS, False for RELEASE
    at_ns: int  # host monotonic ns when it happened at the MCU (via ClockModel)
    mcu_us: int  # unwrapped MCU stamp
    seq: int


@dataclass(frozen=True, slots=True)
class AngleReading:
    """One reading of the top's angle sensor (an ANGLE frame), timed by the MCU."""

    raw: int  # 0..4095 per turn
    status: int  # firmware_proto.AngleStatus bits
    at_ns: int  # host monotonic ns when the MCU read it (via ClockModel); never decreases
    mcu_us: int  # unwrapped MCU stamp
    seq: int


@dataclass(slots=True)
class McuStats:
    """Counters since the link was created (for diagnostics)."""

    frames: int = 0  # frames decoded successfully
    errors: int = 0  # undecodable frames, out-of-order sequence numbers, unexpected messages
    lost_frames: int = 0  # frames known missing from sequence-number gaps
    reconnects: int = 0  # times the link became connected again after having been connected


class _State(Enum):
    CLOSED = "closed"
    HANDSHAKE = "handshake"
    CONNECTED = "connected"
    INCOMPATIBLE = "incompatible"


class McuLink:
    """The MCU button link over a serial port: handshake, clock sync, timestamped pad edges,
    lamps; survives unplug/replug.

    Callbacks run on the event loop thread, synchronously from the serial reader; they must
    be quick and must not block.  An exception raised by a callback is logged and does not
    disturb the link.

    * ``on_edge(edge)``: a PRESS or RELEASE scan; ``edge.at_ns`` is the MCU stamp mapped to
      host monotonic ns.  Edges come in device order; their ``at_ns`` follow the MCU stamps.
    * ``on_watermark(ns)``: every press/release stamped up to host time ``ns`` has been
      delivered (the device sends in timestamp order, so any PRESS/RELEASE/HEARTBEAT
      stamped t vouches for everything up to t).  Never decreases.  Called after every
      edge (with at least the edge's ``at_ns``) and whenever a HEARTBEAT advances it.
    * ``on_angle(reading)`` (optional): an ANGLE frame, its stamp mapped like an edge's.
      Readings that arrive before the clock is synchronised (only right after a device
      restart) are dropped: a stale angle is worth nothing.  They do not move the watermark.
    * ``on_status(state, detail)``: ``"connected"``, ``"disconnected"`` or
      ``"incompatible"``, with an English sentence naming the port.  Reported on change only.
    * ``on_error(message)``: one English sentence per protocol problem (bad frame, lost
      frames, device restart...).

    Without callbacks for status and errors, those are logged.
    """

    def __init__(
        self,
        port: str,
        *,
        name: str = "mcu",
        baudrate: int = 115200,
        on_edge: Callable[[PadEdge], None],
        on_watermark: Callable[[int], None] | None = None,
        on_angle: Callable[[AngleReading], None] | None = None,
        on_status: Callable[[str, str], None] | None = None,
        on_error: Callable[[str], None] | None = None,
        reconnect_interval: float = 0.5,
        ping_interval: float = 1.0,
        clock: Callable[[], int] = time.monotonic_ns,
        handshake_timeout: float = 1.0,
        silence_timeout: float = 1.0,
    ) -> None:
        self._port = port
        self._name = name
        self._baudrate = baudrate
        self._on_edge = on_edge
        self._on_watermark = on_watermark
        self._on_angle = on_angle
        self._on_status = on_status
        self._on_error = on_error
        self._reconnect_interval = reconnect_interval
        self._ping_interval = ping_interval
        self._clock = clock
        self._handshake_timeout = handshake_timeout
        self._silence_timeout = silence_timeout

        self.stats = McuStats()
        self._model = ClockModel()
        self._unwrapper = TimestampUnwrapper()
        self._decoder = FrameDecoder()

        self._loop: asyncio.AbstractEventLoop | None = None
        self._serial: serial.Serial | None = None
        self._fd: int | None = None
        self._tx = bytearray()  # bytes the fd would not take yet (normally always empty)
        self._lost: asyncio.Future[str] | None = None  # set when the session must end
        # Set to wake the session's timer loop early when the handshake state changes.
        self._kick: asyncio.Future[None] | None = None

        self._state = _State.CLOSED
        self._status: tuple[str, str] | None = None
        self._ever_connected = False
        self._hello_sent_ns: int | None = None  # send time of the unanswered HELLO_REQUEST
        self._hello_sent_at = 0.0  # loop time of the same, for the re-ask timer
        self._seed_provisional = False  # the model holds only the HELLO sample
        self._pings: dict[int, int] = {}  # ping_id -> host send ns
        self._next_ping_id = 0
        self._last_seq: int | None = None
        self._last_rx_at = 0.0  # loop time of the last byte received
        self._pending: list[tuple[Press | Release, int]] = []
        self._watermark_ns: int | None = None
        # (mcu_us, at_ns) of the latest frame mapped in device order, see _map.
        self._last_mapped: tuple[int, int] | None = None
        self._last_angle_ns: int | None = None  # at_ns of the latest AngleReading, see _emit_angle
        self._lamps: tuple[int, int] | None = None
        self._reports = ReportLimit(_REPORTS_PER_SECOND)

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
        return self._state is _State.CONNECTED

    @property
    def clock(self) -> ClockModel:
        """The current session's clock model (reset, not replaced, on every reconnect)."""
        return self._model

    def set_lamps(self, on: int, blink: int) -> None:
        """Set the lamp state (bitmasks of pad indices; ``blink`` wins over ``on``).

        Written to the port immediately when connected; remembered and re-sent on every
        (re)connection otherwise.  Raises ValueError for masks outside 16 bits.
        """
        frame = encode(Lamps(on, blink))  # validates before remembering
        self._lamps = (on, blink)
        if self._state is _State.CONNECTED:
            self._write(frame)

    async def run(self) -> None:
        """Keep the link up forever; cancel the task to close the port and stop."""
        self._loop = asyncio.get_running_loop()
        try:
            while True:
                await self._session()
                await asyncio.sleep(self._reconnect_interval)
        finally:
            self._close()

    # -- session ---------------------------------------------------------------------------

    async def _session(self) -> None:
        """One opening of the port, until it is lost (returns) or the task is cancelled."""
        loop = self._loop
        assert loop is not None
        try:
            self._open()
        except OSError as exc:  # serial.SerialException is an OSError
            self._set_status("disconnected", self._open_failure(exc))
            return
        lost: asyncio.Future[str] = loop.create_future()
        self._lost = lost
        try:
            self._send_hello_request()
            next_ping = loop.time()  # the first PING goes out as soon as we are connected
            while not lost.done():
                self._report_held_back()
                now = loop.time()
                due = now + 3600.0  # INCOMPATIBLE: wait quietly for new firmware or unplugging
                count_due = self._reports.count_due_ns()
                if count_due is not None:  # the count of problems held back, once their second is over
                    due = now + 0.001 + max(0.0, (count_due - self._clock()) / 1e9)
                if self._hello_sent_ns is not None:  # handshake, or re-seeding after a restart
                    if now - self._hello_sent_at >= self._handshake_timeout:
                        if self._state is _State.HANDSHAKE:
                            self._set_status(
                                "disconnected",
                                f"The MCU on {self._port} does not answer HELLO_REQUEST within "
                                f"{self._handshake_timeout:g} s; still asking.",
                            )
                        self._send_hello_request()
                    due = self._hello_sent_at + self._handshake_timeout
                if self._state is _State.CONNECTED:
                    if now - self._last_rx_at >= self._silence_timeout:
                        self._connection_lost(
                            f"nothing received for {self._silence_timeout:g} s "
                            "(heartbeats are due every 100 ms)"
                        )
                        break
                    if self._hello_sent_ns is None and now >= next_ping:
                        self._send_ping()
                        next_ping = now + self._ping_interval
                    due = min(due, next_ping, self._last_rx_at + self._silence_timeout)
                kick: asyncio.Future[None] = loop.create_future()
                self._kick = kick
                waiters: list[asyncio.Future[Any]] = [lost, kick]
                await asyncio.wait(
                    waiters,
                    timeout=max(0.001, due - loop.time()),
                    return_when=asyncio.FIRST_COMPLETED,
                )
                self._kick = None
            reason = lost.result()
            self._report_held_back(now=True)
            self._set_status(
                "disconnected",
                f"The MCU on {self._port} was disconnected ({reason}); "
                f"reconnecting every {self._reconnect_interval:g} s.",
            )
        finally:
            self._close()

    def _open(self) -> None:
        port = serial.Serial(self._port, self._baudrate, timeout=0, exclusive=True)
        loop = self._loop
        assert loop is not None
        self._serial = port
        self._fd = port.fileno()
        # A fresh session: the device may have restarted (timer, sequence numbers) or even
        # be a different one, so nothing learned about the previous session carries over.
        self._tx.clear()
        self._decoder.reset()
        self._restart_timeline()
        self._pending.clear()
        self._hello_sent_ns = None
        self._seed_provisional = False
        self._state = _State.HANDSHAKE
        self._last_rx_at = loop.time()
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
        loop, fd, port = self._loop, self._fd, self._serial
        self._fd = None
        self._serial = None
        self._state = _State.CLOSED
        self._tx.clear()
        if loop is not None and fd is not None:
            loop.remove_reader(fd)
            loop.remove_writer(fd)
        if port is not None:
            try:
                port.close()
            except OSError as exc:  # closing a vanished device may fail; it is closed anyway
                log.debug("%s: closing %s: %s", self._name, self._port, exc)

    def _connection_lost(self, reason: str) -> None:
        """End the session from a callback: stop reading now, let ``_session`` clean up."""
        if self._loop is not None and self._fd is not None:
            # Stop the reader at once: a hung-up fd is readable forever.
            self._loop.remove_reader(self._fd)
            self._loop.remove_writer(self._fd)
        self._state = _State.CLOSED
        if self._lost is not None and not self._lost.done():
            self._lost.set_result(reason)

    # -- output ----------------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        """Write now; only if the kernel buffer is full, queue the rest behind a writer."""
        fd = self._fd
        if fd is None:
            return
        if self._tx:  # keep order behind bytes already waiting
            self._tx += data
            return
        try:
            written = os.write(fd, data)
        except BlockingIOError:
            written = 0
        except OSError as exc:
            self._connection_lost(f"write failed: {exc.strerror or exc}")
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
            self._connection_lost(f"write failed: {exc.strerror or exc}")
            return
        del self._tx[:written]
        if not self._tx and self._loop is not None:
            self._loop.remove_writer(fd)

    def _send_hello_request(self) -> None:
        frame = encode(HelloRequest(PROTOCOL_VERSION))
        assert self._loop is not None
        self._hello_sent_at = self._loop.time()
        self._hello_sent_ns = self._clock()  # right before the write: one end of the bracket
        self._write(frame)

    def _send_ping(self) -> None:
        if self._tx:
            return  # a backlog would put the write far after the stamp: skip this round
        ping_id = self._next_ping_id
        self._next_ping_id = (ping_id + 1) % _PING_ID_MODULUS
        frame = encode(Ping(ping_id))
        while len(self._pings) >= _MAX_OUTSTANDING_PINGS:
            del self._pings[next(iter(self._pings))]  # the oldest: surely lost
        self._pings[ping_id] = self._clock()  # right before the write
        self._write(frame)

    def _set_status(self, state: str, detail: str) -> None:
        if self._status == (state, detail):
            return
        self._status = (state, detail)
        if self._on_status is None:
            log.info("%s: %s: %s", self._name, state, detail)
        else:
            self._call(self._on_status, state, detail)

    def _error(self, message: str) -> None:
        self.stats.errors += 1
        self._report(message)

    def _report(self, message: str) -> None:
        if self._reports.admit(self._clock()):
            self._deliver_report(message)
        elif self._reports.held == 1:
            self._wake_session()  # so that it reports the count once the second is over

    def _report_held_back(self, *, now: bool = False) -> None:
        """Report the count of problems held back, once their second is over (or `now`: the
        session is ending, and the count belongs to it)."""
        held = self._reports.take_held(self._clock(), early=now)
        if held:
            self._deliver_report(f"{held} more problem(s) with the MCU on {self._port}, too many at "
                                 "once to report one by one (see the link's statistics)")

    def _deliver_report(self, message: str) -> None:
        if self._on_error is None:
            log.warning("%s: %s", self._name, message)
        else:
            self._call(self._on_error, message)

    def _call(self, fn: Callable[..., None], *args: object) -> None:
        # A failing consumer must not kill the reader: the rest of this read (other pads'
        # presses) still has to be delivered.
        try:
            fn(*args)
        except Exception:
            log.exception("%s: callback %r failed", self._name, fn)

    # -- input: the press path -------------------------------------------------------------

    def _on_readable(self) -> None:
        # Stamp before anything else: this is the receive end of PING/HELLO round trips.
        received_ns = self._clock()
        fd = self._fd
        if fd is None:
            return
        try:
            data = os.read(fd, _READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:  # EIO: the device went away
            self._connection_lost(f"read failed: {exc.strerror or exc}")
            return
        if not data:
            self._connection_lost("the port reported end of file")
            return
        assert self._loop is not None
        self._last_rx_at = self._loop.time()
        for item in self._decoder.feed(data):
            if isinstance(item, ProtocolError):
                self._error(
                    f"Bad frame from the MCU on {self._port}: {item.reason}; {len(item.raw)} bytes dropped."
                )
                continue
            self.stats.frames += 1
            self._dispatch(item, received_ns)
            if self._state is _State.CLOSED:  # a failed write (maybe from a callback) ended it
                return

    def _dispatch(self, msg: Message, received_ns: int) -> None:
        if isinstance(msg, Hello):
            self._on_hello(msg, received_ns)
        elif self._state is not _State.HANDSHAKE and self._state is not _State.CONNECTED:
            return  # INCOMPATIBLE: the frames of another protocol version mean nothing
        elif isinstance(msg, (Press, Release)):  # a tuple: `A | B` builds a new union per call
            self._check_seq(msg.seq)
            mcu_us = self._unwrapper.unwrap(msg.timestamp_us)
            if self._model.ready:
                self._emit_edge(msg, mcu_us)
            elif len(self._pending) < _MAX_PENDING_EDGES:
                self._pending.append((msg, mcu_us))
            else:
                self._error(
                    f"The MCU on {self._port} sent presses before its clock could be "
                    f"synchronised; dropped the {msg.__class__.__name__.upper()} seq {msg.seq}."
                )
        elif isinstance(msg, Heartbeat):
            self._check_seq(msg.seq)
            mcu_us = self._unwrapper.unwrap(msg.timestamp_us)
            if self._model.ready:
                self._advance_watermark(self._map(mcu_us))
        elif isinstance(msg, Pong):
            self._on_pong(msg, received_ns)
        elif isinstance(msg, Angle):
            self._check_seq(msg.seq)
            mcu_us = self._unwrapper.unwrap(msg.timestamp_us)
            if self._on_angle is not None and self._model.ready:
                self._emit_angle(msg, mcu_us)
        else:  # a host -> device message coming back: an echoing (non-raw) tty or a loop
            self._error(
                f"The MCU on {self._port} sent a host-to-device "
                f"{msg.__class__.__name__} frame; is the port echoing?"
            )

    def _emit_edge(self, msg: Press | Release, mcu_us: int) -> None:
        at_ns = self._map(mcu_us)
        edge = PadEdge(msg.pad_indices, isinstance(msg, Press), at_ns, mcu_us, msg.seq)
        self._call(self._on_edge, edge)
        # Always follow an edge with a watermark, even an unchanged one: the consumer settles
        # the scan on the watermark, and waiting for the next HEARTBEAT would cost ~100 ms.
        self._advance_watermark(at_ns, always=True)

    def _emit_angle(self, msg: Angle, mcu_us: int) -> None:
        # Mapped apart from presses (not through _map), so the press path never depends on
        # the angle stream; clamped to never go back, since the spin detector unwraps and
        # differentiates readings in time order and a new clock sample may shift the line
        # back by a few microseconds.
        at_ns = self._model.to_host_ns(mcu_us)
        if self._last_angle_ns is not None and at_ns < self._last_angle_ns:
            at_ns = self._last_angle_ns
        self._last_angle_ns = at_ns
        assert self._on_angle is not None
        self._call(self._on_angle, AngleReading(msg.raw_angle, msg.status, at_ns, mcu_us, msg.seq))

    def _map(self, mcu_us: int) -> int:
        """MCU stamp -> host ns, never earlier than an earlier-or-equal stamp already mapped.

        Each new clock sample moves the line by a few microseconds; without the clamp a
        PRESS could map to just before the HEARTBEAT stamped before it (whose watermark the
        consumer may already have acted on).  The clamp only holds while stamps are within
        that shift of each other, so it heals by itself.  A stamp older than the last one (a
        frame out of device order) is mapped as is: it must show its own time.
        """
        at_ns = self._model.to_host_ns(mcu_us)
        last = self._last_mapped
        if last is None or mcu_us >= last[0]:
            if last is not None and at_ns < last[1]:
                at_ns = last[1]
            self._last_mapped = (mcu_us, at_ns)
        return at_ns

    def _advance_watermark(self, at_ns: int, *, always: bool = False) -> None:
        if self._watermark_ns is None or at_ns > self._watermark_ns:
            self._watermark_ns = at_ns
        elif not always:
            return
        if self._on_watermark is not None:
            self._call(self._on_watermark, self._watermark_ns)

    def _check_seq(self, seq: int) -> None:
        last, self._last_seq = self._last_seq, seq
        if last is None:
            return
        gap = (seq - last - 1) % _SEQ_MODULUS
        if gap == 0:
            return
        if gap < _SEQ_MODULUS // 2:
            self.stats.lost_frames += gap
            self._report(
                f"Lost {gap} frame(s) from the MCU on {self._port}: sequence number jumped "
                f"from {last} to {seq}; a press or release may be missing."
            )
        else:
            self._error(
                f"Out-of-order or repeated frame from the MCU on {self._port}: "
                f"sequence number {seq} after {last}."
            )

    # -- input: handshake and clock --------------------------------------------------------

    def _on_hello(self, hello: Hello, received_ns: int) -> None:
        if hello.protocol_version != PROTOCOL_VERSION:
            self._state = _State.INCOMPATIBLE
            self._hello_sent_ns = None
            self._pending.clear()
            self._set_status(
                "incompatible",
                f"The MCU on {self._port} (firmware {hello.firmware!r}) speaks protocol "
                f"version {hello.protocol_version}, but this console speaks version "
                f"{PROTOCOL_VERSION}; update the firmware or the console.",
            )
            return
        sent_ns = self._hello_sent_ns
        if sent_ns is None:
            self._on_unsolicited_hello(hello)
            return
        self._hello_sent_ns = None
        mcu_us = self._unwrapper.unwrap(hello.timestamp_us)
        if not self._model.add_sample(sent_ns, received_ns, mcu_us):
            self._send_hello_request()  # too slow to trust; ask again
            return
        # The HELLO carries no request id: if an earlier request was answered late, this
        # sample is off.  The first PONG (which has an id) replaces it.
        self._seed_provisional = True
        was_connected = self._state is _State.CONNECTED
        self._state = _State.CONNECTED
        if not was_connected:
            if self._ever_connected:
                self.stats.reconnects += 1
            self._ever_connected = True
            self._set_status(
                "connected",
                f"The MCU {hello.firmware!r} on {self._port} is connected "
                f"(protocol {hello.protocol_version}, {hello.pad_count} pads, "
                f"timer resolution {hello.timer_resolution_us} µs).",
            )
        if self._lamps is not None:  # a new or restarted device has its lamps off
            self._write(encode(Lamps(*self._lamps)))
        pending, self._pending = self._pending, []
        for msg, pending_us in pending:
            self._emit_edge(msg, pending_us)
        self._wake_session()  # the first PING is due now, not at the end of the HELLO timer

    def _wake_session(self) -> None:
        if self._kick is not None and not self._kick.done():
            self._kick.set_result(None)

    def _on_unsolicited_hello(self, hello: Hello) -> None:
        """A HELLO nobody asked for: a power-up HELLO (restart) or a duplicate answer."""
        last = self._unwrapper.last
        if last is not None and self._state is not _State.INCOMPATIBLE:
            ahead = (hello.timestamp_us - last) % STAMP_MODULUS
            if ahead < _HELLO_CONTINUITY_US:
                return  # same timeline: a late answer to a repeated HELLO_REQUEST
        if self._state is _State.CONNECTED:
            self._report(
                f"The MCU on {self._port} restarted (it sent a power-up HELLO); resynchronising its clock."
            )
        elif self._state is _State.INCOMPATIBLE:
            self._state = _State.HANDSHAKE  # new firmware, it seems: its presses count again
        self._restart_timeline()
        self._unwrapper.unwrap(hello.timestamp_us)
        self._send_hello_request()  # the answer's round trip seeds the clock

    def _restart_timeline(self) -> None:
        self._unwrapper.reset()
        self._model.reset()
        self._pings.clear()
        self._last_seq = None
        self._last_mapped = None
        self._last_angle_ns = None

    def _on_pong(self, pong: Pong, received_ns: int) -> None:
        mcu_us = self._unwrapper.unwrap(pong.timestamp_us)
        sent_ns = self._pings.pop(pong.ping_id, None)
        if sent_ns is None:
            return  # forgotten (too old) or from before a restart: no usable bracket
        if self._seed_provisional and 0 <= received_ns - sent_ns <= self._model.max_rtt_ns:
            # The first usable PONG replaces the HELLO seed, whose bracket may be wrong.
            self._seed_provisional = False
            self._model.reset()
        self._model.add_sample(sent_ns, received_ns, mcu_us)
