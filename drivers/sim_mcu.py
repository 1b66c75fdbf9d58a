"""A button MCU simulated on the device side of a pseudo-terminal.

The host side of the pty behaves like the USB serial port of the real MCU, so the real
driver (:class:`drivers.mcu_serial.McuLink`) runs unchanged against it in tests and in the
demo.  The simulation speaks ``firmware_proto`` like the firmware does: HELLO at power-up and
on HELLO_REQUEST, PONG on PING, HEARTBEAT every ``heartbeat_interval`` (while the top's
readings go out in bursts, in the same write as the next burst: one USB transfer, as a real
box's frames share the adapter's; never more than HEARTBEAT_GRACE_S late), PRESS/RELEASE frames
stamped with its own (offset, drifting, wrapping) 32-bit microsecond timer, and it records the
LAMPS state the host sends.  Like the firmware it sends a 0x00 before every frame as well as
after it (PROTOCOL.md 2.4), so line noise before a frame (``press(..., noise=...)``) never
swallows it.  It keeps its last ``RESEND_DEPTH`` sequenced frames and sends them again on
RESEND (PROTOCOL.md 5.9); :meth:`lose_next_frames` drops frames on the way to the host
while keeping them for that.

Threading: one daemon thread owns the master fd (reads host frames, sends heartbeats, and is
the only one that opens or closes the pty, so no thread ever touches a closed and reused fd).
:meth:`press`, :meth:`release`, :meth:`send_angle` and :meth:`send_raw` write from the
caller's thread; every write, together with the timer read and sequence number it carries,
happens under one lock, so frames leave in non-decreasing timestamp and sequence order as the
protocol requires.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
import tty
from collections import deque
from collections.abc import Callable
from types import TracebackType

from firmware_proto import (
    MAX_ANGLES_PER_FRAME,
    PROTOCOL_VERSION,
    RESEND_DEPTH,
    STAMP_MODULUS,
    Angle,
    AngleRate,
    Angles,
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
    Resend,
    encode_delimited,
)

__all__ = ["SimulatedMcu"]

_SEQ_MODULUS = 1 << 16
# A burst carries the heartbeat that falls due within this long after it, and a heartbeat owed
# waits this long for a burst: a little longer than the firmware gathers one (ANGLE_BATCH_US,
# 40 ms). So a stream of bursts carries every heartbeat, one burst a few ms late included,
# and the host wakes once a burst; heartbeats then leave with every burst or every other one,
# well within PROTOCOL.md 5.4's 100 ms.
HEARTBEAT_GRACE_S = 0.045


class SimulatedMcu:
    """A button MCU simulated on the device side of a pseudo-terminal; speaks firmware_proto
    like the real firmware.

    ``clock_offset_us`` and ``drift_ppm`` shape the MCU timer (see :meth:`now_us`);
    ``protocol_version`` lets tests impersonate a device of another protocol version;
    ``reset_timer_on_replug`` makes :meth:`replug` behave like a USB power cycle (timer and
    sequence numbers restart at zero).
    """

    def __init__(
        self,
        *,
        pads: int = 4,
        link_path: str | None = None,
        clock_offset_us: int = 0,
        drift_ppm: float = 0.0,
        timer_resolution_us: int = 1,
        heartbeat_interval: float = 0.05,
        firmware: str = "sim-mcu 1.0",
        clock: Callable[[], int] = time.monotonic_ns,
        reset_timer_on_replug: bool = False,
        protocol_version: int = PROTOCOL_VERSION,
    ) -> None:
        if not 1 <= pads <= 16:
            raise ValueError(f"pads must be 1..16, got {pads}")
        self._pads = pads
        self._link_path = link_path
        self._offset_us = clock_offset_us
        self._rate = 1.0 + drift_ppm * 1e-6
        self._resolution_us = timer_resolution_us
        self._heartbeat_interval = heartbeat_interval
        self._firmware = firmware
        self._clock = clock
        self._reset_timer_on_replug = reset_timer_on_replug
        self._protocol_version = protocol_version

        # Unwrapped timer value subtracted from every reading; a power cycle sets it so that
        # the timer restarts at zero.
        self._timer_zero_us = 0
        self._seq = 0
        self._held = 0  # bitmask of pads currently down (for HEARTBEAT)
        # The last sequenced frames sent, for RESEND (PROTOCOL.md 5.9), oldest first.
        self._sent: deque[Press | Release | Heartbeat | Angle | Angles] = deque(maxlen=RESEND_DEPTH)
        self._lose = 0  # sequenced frames still to be "lost on the line" (lose_next_frames)

        self._write_lock = threading.Lock()  # guards _master_fd writes, _seq, _held, _angles
        # Readings of the top taken and not sent yet (raw, status, host ns read): a firmware
        # that sends its readings in bursts sends them before any later-stamped frame
        # (PROTOCOL.md 5.2), so every other frame flushes them first.
        self._angles: list[tuple[int, int, int]] = []
        # The host's ANGLE_RATE (PROTOCOL.md 4.12): at most one reading per this many µs of
        # the timer (0: all), after the last one sent (its stamp, its status). A power-up
        # forgets it, as the firmware's RAM does.
        self._angle_interval_us = 0
        self._last_angle: tuple[int, int] | None = None
        # A heartbeat fell due while a burst was being gathered: it leaves with the burst (one
        # write, as the box's frames share one USB transfer), or alone after HEARTBEAT_GRACE_S.
        self._heartbeat_owed = False
        self._heartbeat_due = 0.0  # when the next heartbeat falls due (time.monotonic)
        self._master_fd: int | None = None
        self._slave_fd: int | None = None
        self._slave_path: str | None = None

        self._cond = threading.Condition()
        self.lamps: tuple[int, int] = (0, 0)
        """(on, blink) as last received from the host."""
        self.lamp_log: list[tuple[int, int, int]] = []
        """(host monotonic ns when received, on, blink) for every LAMPS frame."""
        self.edge_at_ns: int | None = None
        """The host ns of the latest PRESS or RELEASE: the instant its stamp carries."""

        # Commands run by the service thread (unplug/replug/stop), woken through a pipe.
        self._commands: list[Callable[[], None]] = []
        self._commands_lock = threading.Lock()
        self._wake_r, self._wake_w = -1, -1
        self._thread: threading.Thread | None = None
        self._running = False

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> None:
        """Create the pty ("plug in"), say HELLO, and start serving it in a daemon thread."""
        if self._thread is not None:
            raise RuntimeError("SimulatedMcu already started")
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._plug(power_cycle=False, hello=True)  # powered up now
        self._running = True
        self._thread = threading.Thread(target=self._serve, name="sim-mcu", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Unplug and stop the service thread.  Idempotent."""
        if self._thread is None:
            return
        self._in_thread(self._stop_in_thread)
        self._thread.join(timeout=2.0)
        self._thread = None
        os.close(self._wake_r)
        os.close(self._wake_w)

    def __enter__(self) -> SimulatedMcu:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def unplug(self) -> None:
        """Close the master side (the host sees EIO / hang-up) and remove the symlink."""
        self._in_thread(self._unplug)

    def replug(self) -> None:
        """Plug back in: a new pty pair and the symlink repointed.  A power cycle
        (``reset_timer_on_replug``) says a power-up HELLO; a box that kept its power (a cable
        blip) says nothing until asked, and still holds what it sent while unplugged."""
        power_cycle = self._reset_timer_on_replug
        self._in_thread(lambda: self._plug(power_cycle=power_cycle, hello=power_cycle))

    @property
    def port(self) -> str:
        """The path the host should open: ``link_path`` if given, else the slave tty."""
        if self._link_path is not None:
            return self._link_path
        if self._slave_path is None:
            raise RuntimeError("SimulatedMcu is not plugged in")
        return self._slave_path

    @property
    def plugged(self) -> bool:
        """True while the pty exists."""
        return self._master_fd is not None

    # -- the MCU timer ---------------------------------------------------------------------

    def now_us(self) -> int:
        """The MCU's 32-bit timer now (see :meth:`_timer_at`)."""
        return self._timer_at(self._clock())

    def _timer_at(self, host_ns: int) -> int:
        """The 32-bit timer at host time ``host_ns``.

        ``(host_ns // 1000 * (1 + drift_ppm * 1e-6) + clock_offset_us)``, minus the value at
        the last power cycle, quantised to ``timer_resolution_us``, modulo 2**32.
        """
        ticks = self._unwrapped_at(host_ns) - self._timer_zero_us
        ticks -= ticks % self._resolution_us
        return ticks % STAMP_MODULUS

    def _unwrapped_at(self, host_ns: int) -> int:
        return int(host_ns // 1000 * self._rate) + self._offset_us

    # -- device -> host ----------------------------------------------------------------------

    def press(self, *pads: int, noise: bytes = b"") -> int:
        """Send one PRESS frame for ``pads`` (one scan); return the host ns it was written at
        (the press itself, the instant its stamp carries, is :attr:`edge_at_ns`: under load this
        thread may wait a few ms between the two).

        ``noise`` is put on the line just before the frame, in the same write (a stray byte
        or a burst picked up by the idle line right before the press), so no other frame
        can come between them.
        """
        return self._send_edge(pads, pressed=True, noise=noise)

    def release(self, *pads: int, noise: bytes = b"") -> int:
        """Send one RELEASE frame for ``pads`` (one scan), ``noise`` as in :meth:`press`;
        return the host ns it was written at."""
        return self._send_edge(pads, pressed=False, noise=noise)

    def sample_angle(self, read: Callable[[int], tuple[int, int] | None]) -> tuple[int, int, int] | None:
        """Take a reading of the top's sensor: ``read(host_ns)`` gives ``(raw, status)`` at that
        moment, or None for no reading. Reading and stamping are one step, as in the firmware's
        sampling interrupt, so no frame stamped later can leave before it; the reading is sent
        with the next :meth:`flush_angles` or before any later frame, whichever comes first.
        Returns ``(raw, status, host ns read)``, or None for no reading or one the host's
        ANGLE_RATE leaves unsent."""
        with self._write_lock:
            at = self._clock()
            reading = read(at)
            if reading is None:
                return None
            raw, status = reading
            Angle(0, 0, raw, status)  # validate now: a failure must not leave a gap in seq later
            stamp, last = self._timer_at(at), self._last_angle
            if (last is not None and status == last[1]
                    and (stamp - last[0]) % STAMP_MODULUS < self._angle_interval_us):
                return None  # read, and not sent: the host asked for fewer
            self._last_angle = (stamp, status)
            self._angles.append((raw, status, at))
            return raw, status, at

    def flush_angles(self) -> int:
        """Send the buffered readings in one write; return the host ns of the write."""
        with self._write_lock:
            self._flush_angles_locked()
            return self._clock()

    def _flush_angles_locked(self) -> None:
        """Send the readings not sent yet, and after them the heartbeat owed or falling due
        within HEARTBEAT_GRACE_S, in one write: what one USB transfer of a burst carries.
        Readings go as ANGLES frames of up to MAX_ANGLES_PER_FRAME with one status
        (PROTOCOL.md 4.11); a lone reading as ANGLE."""
        frames = [self._wire_locked(msg) for msg in self._angle_frames(self._angles)]
        self._angles = []
        now_s = time.monotonic()
        if self._heartbeat_owed or (frames and now_s >= self._heartbeat_due - HEARTBEAT_GRACE_S):
            self._heartbeat_owed = False
            self._heartbeat_due = now_s + self._heartbeat_interval
            frames.append(self._wire_locked(Heartbeat(self._take_seq(), self.now_us(), self._held)))
        if frames:
            self._write_locked(b"".join(frames))

    def _angle_frames(self, readings: list[tuple[int, int, int]]) -> list[Angle | Angles]:
        """Number and stamp ``(raw, status, host ns read)`` readings into frames: a new frame
        when the status changes, the frame is full, or a reading would be older than an age
        can say (PROTOCOL.md 4.11)."""
        groups: list[list[tuple[int, int, int]]] = []
        for reading in readings:
            group = groups[-1] if groups else None
            if (group is None or len(group) == MAX_ANGLES_PER_FRAME or group[0][1] != reading[1]
                    or (self._timer_at(reading[2]) - self._timer_at(group[0][2])) % STAMP_MODULUS > 0xFFFF):
                groups.append([reading])
            else:
                group.append(reading)
        frames: list[Angle | Angles] = []
        for group in groups:
            raw, status, at = group[-1]
            newest = self._timer_at(at)
            if len(group) == 1:
                frames.append(Angle(self._take_seq(), newest, raw, status))
                continue
            pairs = tuple(((newest - self._timer_at(read_at)) % STAMP_MODULUS, raw)
                          for raw, _, read_at in group)
            frames.append(Angles(self._take_seq(), newest, status, pairs))
        return frames

    def send_angle(self, raw: int, status: int = 1) -> int:
        """Send one ANGLE frame (a reading of the top's angle sensor, ``status`` bits as in
        ``AngleStatus``); return the host ns it was written at.  Raises ValueError for a
        reading out of range, before taking a sequence number."""
        Angle(0, 0, raw, status)  # validate first: a failure must not leave a gap in seq
        with self._write_lock:
            self._flush_angles_locked()
            # Stamp, number and write atomically, like presses (frames leave in stamp order).
            msg = Angle(self._take_seq(), self._timer_at(self._clock()), raw, status)
            frame = self._wire_locked(msg)
            written_ns = self._clock()
            self._write_locked(frame)
        return written_ns

    def send_raw(self, data: bytes) -> None:
        """Write ``data`` as is (garbage, corrupted or hand-built frames, for tests)."""
        with self._write_lock:
            self._write_locked(data)

    def lose_next_frames(self, count: int) -> None:
        """The next ``count`` sequenced frames are lost on the line (noise during their own
        transmission): not written, but numbered and kept for RESEND like any other."""
        with self._write_lock:
            self._lose += count

    def send_frame(self, build: Callable[[int, int], Message]) -> Message:
        """Send a hand-built sequenced frame: ``build(seq, now_us)`` returns the message.

        Called under the write lock with the next sequence number and the timer now, so the
        frame takes its proper place in the sequence (tests use it for frames stamped in the
        past, i.e. delivered late).  Returns the message sent.
        """
        with self._write_lock:
            self._flush_angles_locked()
            msg = build(self._take_seq(), self._timer_at(self._clock()))
            if isinstance(msg, (Press, Release, Heartbeat, Angle, Angles)):
                self._write_locked(self._wire_locked(msg))
            else:
                self._write_locked(encode_delimited(msg))
        return msg

    def step_timer(self, delta_us: int) -> None:
        """The timer jumps by ``delta_us`` (either way) without a restart or a HELLO: a
        glitching MCU clock, for the clock-trust tests (issue 10)."""
        with self._write_lock:
            self._offset_us += delta_us

    def skip_seq(self, count: int) -> None:
        """Pretend ``count`` sequenced frames were lost on the way (for seq-gap tests)."""
        with self._write_lock:
            self._seq = (self._seq + count) % _SEQ_MODULUS

    def _send_edge(self, pads: tuple[int, ...], *, pressed: bool, noise: bytes) -> int:
        if not pads:
            raise ValueError("a PRESS/RELEASE names at least one pad")
        mask = 0
        for pad in pads:
            if not 0 <= pad < self._pads:
                raise ValueError(f"pad {pad} out of range 0..{self._pads - 1}")
            mask |= 1 << pad
        with self._write_lock:
            self._flush_angles_locked()
            # Stamp, number and write atomically so frames leave in timestamp order.
            host_ns = self.edge_at_ns = self._clock()
            stamp = self._timer_at(host_ns)
            msg: Message
            if pressed:
                self._held |= mask
                msg = Press(self._take_seq(), stamp, mask)
            else:
                self._held &= ~mask
                msg = Release(self._take_seq(), stamp, mask)
            frame = noise + self._wire_locked(msg)
            # Returned: when the frame went onto the line (the press itself is `host_ns`,
            # which the frame carries as its MCU stamp).
            written_ns = self._clock()
            self._write_locked(frame)
        return written_ns

    def _take_seq(self) -> int:
        seq = self._seq
        self._seq = (seq + 1) % _SEQ_MODULUS
        return seq

    def _wire_locked(self, msg: Press | Release | Heartbeat | Angle | Angles) -> bytes:
        """The bytes that reach the line for a sequenced frame (none while frames are being
        lost), kept for RESEND either way.  Caller holds ``_write_lock``."""
        self._sent.append(msg)
        if self._lose:
            self._lose -= 1
            return b""
        return encode_delimited(msg)

    def _resend_locked(self, request: Resend) -> bytes:
        """The frames a RESEND asks for that are still kept, in sequence order (5.9)."""
        wanted = [m for m in self._sent if (m.seq - request.from_seq) % _SEQ_MODULUS < request.count]
        wanted.sort(key=lambda m: (m.seq - request.from_seq) % _SEQ_MODULUS)
        return b"".join(encode_delimited(m) for m in wanted)

    def _write_locked(self, data: bytes) -> None:
        """Write all of ``data`` to the master; silently dropped while unplugged (like a real
        device whose USB cable is out).  Caller holds ``_write_lock``."""
        fd = self._master_fd
        if fd is None:
            return
        view = memoryview(data)
        while view:
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                select.select([], [fd], [], 0.1)
                continue
            except OSError:
                return  # the host end vanished; a real device would just keep running
            view = view[written:]

    def _send(self, msg: Message) -> None:
        with self._write_lock:
            self._flush_angles_locked()
            self._write_locked(encode_delimited(msg))

    def _hello(self) -> Hello:
        return Hello(self._protocol_version, self._pads, self._resolution_us, self.now_us(), self._firmware)

    # -- host -> device ------------------------------------------------------------------------

    def wait_lamps(self, predicate: Callable[[int, int], bool], timeout: float) -> tuple[int, int] | None:
        """Block until a LAMPS frame has been received and ``predicate(on, blink)`` holds for
        the latest state; return that state, or None on timeout.  Thread-safe.

        Before the first LAMPS frame the predicate is not consulted, so
        ``wait_lamps(lambda on, blink: True, t)`` waits for the host's first lamp frame.
        """
        with self._cond:
            if self._cond.wait_for(lambda: bool(self.lamp_log) and predicate(*self.lamps), timeout):
                return self.lamps
            return None

    def _handle(self, msg: Message, received_ns: int) -> None:
        match msg:
            case HelloRequest():
                with self._write_lock:  # stamp and write together, like PONG
                    self._flush_angles_locked()
                    self._write_locked(encode_delimited(self._hello()))
            case Ping(ping_id=ping_id):
                with self._write_lock:
                    self._flush_angles_locked()
                    self._write_locked(encode_delimited(Pong(ping_id, self.now_us())))
            case Resend():
                with self._write_lock:
                    self._write_locked(self._resend_locked(msg))
            case AngleRate(interval_us=interval_us):
                with self._write_lock:
                    self._angle_interval_us = interval_us
            case Lamps(on=on, blink=blink):
                with self._cond:
                    self.lamps = (on, blink)
                    self.lamp_log.append((received_ns, on, blink))
                    self._cond.notify_all()
            case _:
                pass  # device -> host messages echoed back, or future types: ignore

    # -- the service thread ----------------------------------------------------------------------

    def _serve(self) -> None:
        decoder = FrameDecoder()
        served_fd: int | None = None
        self._heartbeat_due = owed_at = time.monotonic()
        while self._running:
            fd = self._master_fd
            if fd != served_fd:  # (re)plugged: a new byte stream
                decoder.reset()
                served_fd = fd
            watched = [self._wake_r] if fd is None else [self._wake_r, fd]
            timeout = max(0.0, (owed_at + HEARTBEAT_GRACE_S if self._heartbeat_owed else self._heartbeat_due)
                          - time.monotonic())
            readable, _, _ = select.select(watched, [], [], timeout)
            if self._wake_r in readable:
                self._run_commands()
                continue  # the fd may have changed
            if fd is not None and fd in readable:
                received_ns = self._clock()
                try:
                    data = os.read(fd, 4096)
                except BlockingIOError:
                    data = b""
                except OSError:
                    data = b""  # EIO when no host has the slave open: nothing to read
                    time.sleep(0.001)
                for item in decoder.feed(data):
                    if not isinstance(item, ProtocolError):  # host noise is ignored, as on the MCU
                        self._handle(item, received_ns)
            now_s = time.monotonic()
            # Unplugged too: the box keeps its power, numbers and keeps its frames; they go
            # nowhere until asked for again (RESEND).
            with self._write_lock:
                if self._heartbeat_owed:  # no burst has carried it yet
                    if now_s >= owed_at + HEARTBEAT_GRACE_S:
                        self._flush_angles_locked()
                elif now_s >= self._heartbeat_due:
                    self._heartbeat_owed, owed_at = True, now_s
                    if not self._angles:  # no burst on its way: it leaves alone
                        self._flush_angles_locked()

    def _in_thread(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the service thread and wait for it (directly if no thread runs)."""
        thread = self._thread
        if thread is None or not thread.is_alive() or thread is threading.current_thread():
            fn()
            return
        done = threading.Event()
        failure: list[BaseException] = []

        def command() -> None:
            try:
                fn()
            except Exception as exc:  # hand it to the caller; the thread keeps serving
                failure.append(exc)
            finally:
                done.set()

        with self._commands_lock:
            self._commands.append(command)
        os.write(self._wake_w, b"x")
        if not done.wait(timeout=2.0):
            raise RuntimeError("simulated MCU thread did not respond")
        if failure:
            raise failure[0]

    def _run_commands(self) -> None:
        with contextlib.suppress(BlockingIOError):
            os.read(self._wake_r, 4096)
        with self._commands_lock:
            commands, self._commands = self._commands, []
        for command in commands:
            command()

    def _stop_in_thread(self) -> None:
        self._unplug()
        self._running = False

    # -- plugging (service thread only once it runs) ------------------------------------------------

    def _plug(self, *, power_cycle: bool, hello: bool) -> None:
        self._unplug()
        master, slave = os.openpty()
        # Raw mode on both ends: no echo, no line editing, no CR/LF translation, so frame
        # bytes (including 0x00, 0x03, 0x0A...) pass untouched in both directions.
        tty.setraw(master)
        tty.setraw(slave)
        os.set_blocking(master, False)
        path = os.ttyname(slave)
        with self._write_lock:
            if power_cycle:
                self._timer_zero_us = self._unwrapped_at(self._clock())
                self._seq = 0
                self._held = 0
                self._sent.clear()
                self._angle_interval_us, self._last_angle = 0, None
            self._master_fd = master
        if power_cycle:
            with self._cond:  # lamps are off after power-up until the host says otherwise
                self.lamps = (0, 0)
                self._cond.notify_all()
        # Keep our own slave fd open: the pty then survives the host closing and reopening
        # its end (otherwise the master reads EIO between host sessions).
        self._slave_fd = slave
        self._slave_path = path
        if self._link_path is not None:
            # Atomic repoint: the host never sees a missing or half-written link.
            tmp = f"{self._link_path}.tmp{os.getpid()}"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            os.symlink(path, tmp)
            os.replace(tmp, self._link_path)
        if hello:
            self._send(self._hello())  # power-up HELLO, as the firmware does

    def _unplug(self) -> None:
        with self._write_lock:
            master, self._master_fd = self._master_fd, None
        if master is None:
            return
        if self._link_path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._link_path)
        os.close(master)
        if self._slave_fd is not None:
            os.close(self._slave_fd)
            self._slave_fd = None
        self._slave_path = None
