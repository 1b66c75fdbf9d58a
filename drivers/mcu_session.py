"""The protocol side of the button MCU link, without I/O: a sans-IO session.

:class:`McuSession` is what :class:`~drivers.mcu_serial.McuLink` used to do between its fd
reads and writes: the HELLO handshake, clock seeding and sync, the ping schedule, sequence
gaps and their repair (RESEND), presses held until the clock is seeded, watermarks,
rate-limited problem reports and the decision that a silent device is lost.  It does no
I/O, reads no clock and knows nothing of asyncio: the transport hands it bytes and the
time, writes the frames it returns, hands on the inputs it returns, and calls
:meth:`McuSession.on_timer` at :meth:`McuSession.next_deadline`.  Tests step time by hand.

One timebase: every ``now`` and every ``at_ns`` here is host monotonic nanoseconds (the
transport's ``time.monotonic_ns``), used both to time round trips and to schedule; there is
no second (event loop) clock.

The pieces: this module is the link's state (handshake, status, silence, the ping schedule,
sequence numbers and gap repair, held presses, watermarks, problems); ``drivers.mcu_clock`` keeps the
device's timeline on host time (clock seeding, pings and pongs, stamp mapping) and
``drivers.mcu_inputs`` holds the records the session hands on.

Fairness: a :class:`PadEdge` carries the time at which the MCU *scanned* the press (its own
stamp mapped onto host time by a :class:`~drivers.clock_sync.ClockModel`), never the time
the frame happened to arrive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache

from drivers.clock_sync import ClockModel
from drivers.link_state import LinkState
from drivers.mcu_clock import McuTimeline
from drivers.mcu_inputs import (
    AngleReading,
    HeldPads,
    McuInput,
    McuStats,
    PadEdge,
    Problem,
    SessionOutput,
    StatusChanged,
    Watermark,
)
from drivers.report_limit import ReportLimit
from firmware_proto import (
    MAX_HEARTBEAT_INTERVAL_US,
    PROTOCOL_VERSION,
    RESEND_DEPTH,
    SEQ_MODULUS,
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
    Pong,
    Press,
    ProtocolError,
    Release,
    Resend,
    encode,
)

__all__ = [
    "AngleReading",
    "HeldPads",
    "McuInput",
    "McuSession",
    "McuStats",
    "PadEdge",
    "Problem",
    "SessionOutput",
    "StatusChanged",
    "Watermark",
]

_NS_PER_S = 1_000_000_000
# Presses that arrive while the clock model is unseeded (only right after a device restart)
# wait for the HELLO round trip; a device that never answers is dropped with the session.
_MAX_PENDING_EDGES = 64
# An unsolicited HELLO whose stamp continues the current timeline by less than this is a late
# answer to a repeated HELLO_REQUEST, not a restart (a restarted timer starts near zero).
_HELLO_CONTINUITY_US = 2_000_000
# A line full of noise yields a bad frame every few bytes: at most this many problems are
# reported one by one per second, the rest as a count (drivers/report_limit.py).
_REPORTS_PER_SECOND = 5
_HELLO_REQUEST = encode(HelloRequest(PROTOCOL_VERSION))
# How long the frames a RESEND asked for are waited for (PROTOCOL.md 5.9: "a few round
# trips"; a USB serial round trip is ~1-2 ms).  Presses after the gap wait that long at most.
_RESEND_TIMEOUT_NS = 50_000_000
# A box back after its port was lost (a cable blip) kept its power if its timer ran on with the
# host's clock meanwhile: the first stamp of the new round is this far (plus 1 % of the time
# away, a crystal's worst) from where the last one of the old round says it must be.  A
# restarted timer starts anywhere in 71 minutes: it lands in this window by chance about once
# in 10 000 restarts, and then its sequence number (from 0) must also look like a small gap.
_CONTINUITY_TOL_NS = 250_000_000
# Clock trust (issue 10).  A frame can never be received before the device stamped it, so a
# stamp that maps later than its arrival by more than the mapping's error (ClockModel.
# error_bound_ns, plus this) shows a timer that jumped ahead: the mapping is broken.
_FUTURE_TOL_NS = 5_000_000
# A frame normally arrives within a millisecond or two of its stamp.  One that maps this much
# earlier shows either a timer that stepped back or a host that was busy: a PING at once tells
# which (its PONG must map inside its own round trip), and the presses wait for it.
_LATE_TOL_NS = 30_000_000
# How long the PING of that check is waited for before the mapping counts as broken.  The PONG
# is read by the host that was just too busy to read the frame in time: on a loaded machine
# (seen on two busy CPUs) it can take well over the 50 ms a RESEND waits, and a false "broken"
# costs more (presses placed at their arrival, the source flagged) than holding the presses of
# an already late read a little longer.  A device that really stopped answering is found by
# the silence check as well.
_PROBE_TIMEOUT_NS = 300_000_000
# How far outside its round trip a PONG may map (beyond the mapping's error bound) before the
# mapping counts as broken.
_PONG_TOL_NS = 2_000_000


@lru_cache(maxsize=64, typed=True)  # typed: a bool or float mask is refused, never served
def _lamps_frame(on: int, blink: int) -> bytes:
    """The LAMPS frame for these masks. A game uses a handful of lamp states over and over;
    building the frame again (record checks, CRC, COBS) cost the press's lamp tens of µs."""
    return encode(Lamps(on, blink))


def _pads_of(mask: int) -> tuple[int, ...]:
    return tuple(i for i in range(mask.bit_length()) if mask >> i & 1)


@dataclass(frozen=True, slots=True)
class _Carry:
    """Where the previous round stopped: a box that kept its power still holds what it sent
    since (PROTOCOL.md 5.9), and the next round asks for it."""

    seq: int | None  # the last sequence number read (None: none was, nothing can be asked for)
    stamp_us: int  # the latest device stamp read (raw, u32)
    at_ns: int  # when the last bytes arrived


@dataclass(slots=True)
class _Gap:
    """One sequence gap being repaired: the numbers still missing and until when."""

    last: int  # the sequence number before the gap
    seq: int  # the one that revealed it
    missing: set[int]
    due_ns: int


@dataclass(slots=True)
class _Repair:
    """Edges and watermarks held back while sequence numbers are missing (PROTOCOL.md 5.9:
    no press stamped after a gap is decided on until the gap is filled or given up)."""

    base: int  # the first missing number of the first gap: held edges sort from it
    gaps: list[_Gap] = field(default_factory=list)
    edges: list[PadEdge] = field(default_factory=list)
    mark_ns: int | None = None  # the watermark to hand on after the edges
    mark_always: bool = False  # hand it on even if unchanged (an edge was held)

    @property
    def filled(self) -> bool:
        return not any(gap.missing for gap in self.gaps)


class _State(Enum):
    CLOSED = "closed"
    HANDSHAKE = "handshake"
    CONNECTED = "connected"
    INCOMPATIBLE = "incompatible"


class McuSession:
    """The MCU link's protocol logic over any byte transport; pure.

    Contract (``now`` is host monotonic ns, never decreasing from call to call):

    * Life cycle, one round per opening of the port: :meth:`opened` (port open; returns the
      HELLO_REQUEST to write), then :meth:`receive` for the bytes read and :meth:`on_timer`
      at :meth:`next_deadline`, until the transport loses the port (:meth:`lost`) or an
      output says ``close`` (the device went silent).  :meth:`open_failed` reports a port
      that would not open.  Every round starts afresh (decoder, timestamp unwrapper, clock
      model, sequence numbers): the device may have restarted, or be another one.  But the
      first sequenced frame of a round is compared with where the previous connected round
      stopped: a device whose timer ran on (a cable blip; the box kept its power) is asked
      for what it sent meanwhile, as for any gap (RESEND, below; the newest ``RESEND_DEPTH``
      numbers, the older ones lost); one that restarted has nothing to send, and the next
      Watermark carries ``lost_from_ns``.
    * Every call returns a fresh :class:`SessionOutput`: write its frames first, then hand
      on its inputs in order, then close the port if it says so.  Writing first matters: a
      consumer that sets the lamps on ``"connected"`` must not be overtaken by the lamp
      state the session re-sends.  :meth:`lamps` returns its frame directly.
    * Handshake: HELLO_REQUEST on opening and again every ``handshake_timeout_ns`` until a
      HELLO arrives (the port stays open: closing it toggles DTR and resets many boards);
      the first time it goes unanswered the status becomes ``"disconnected"`` (still
      asking).  A HELLO of another protocol version gives ``"incompatible"`` and every other
      frame is ignored until a compatible HELLO (new firmware) arrives.
    * Clock: the round trip of the answered HELLO_REQUEST seeds the clock model (the
      request's ``now`` and the HELLO's ``now`` bracket the device's stamp); the first usable
      PONG replaces that provisional seed.  A round trip too slow to trust asks again.  A
      PING is due at once on connecting and then every ``ping_interval_ns``; it is stamped
      with the ``now`` of :meth:`on_timer`, so the transport must read its clock right
      before that call and write the PING at once (a ``backlog`` of unwritten bytes skips
      the round).
    * Presses: PRESS/RELEASE become :class:`PadEdge` inputs in device order, each followed
      by a :class:`Watermark` (at least the edge's ``at_ns``, possibly unchanged: the
      consumer settles a scan on it); a HEARTBEAT gives a Watermark when it advances it.
      Watermarks never decrease, across rounds too.  Presses that arrive before the clock is
      seeded wait (at most 64) and are handed on when it is.  An edge's ``at_ns`` never maps
      earlier than an earlier-stamped frame's (see `McuTimeline.map_edge`).
    * Angles (if ``angles``): ANGLE frames, and each reading of an ANGLES frame (a burst,
      its stamp checked once), become :class:`AngleReading` inputs once the clock is seeded
      (a stale angle is worth nothing); their ``at_ns`` never decreases.
      With ``angle_interval_us``, at most one reading per interval of the device's clock is
      kept (one whose sensor status changed always is): the table's rate (spin.max_rate_hz),
      the rest dropped before their stamps are mapped.
    * Gaps (PROTOCOL.md 5.9): a gap of at most ``RESEND_DEPTH`` sequence numbers (also in
      the handshake, before the clock is seeded: those presses wait anyway) writes a RESEND
      for the missing numbers; until they have all arrived or ``resend_timeout_ns`` has
      passed, later PadEdges and Watermarks are held back (angles are not).  A frame whose
      number is missing is the device sending it again: it is taken at its own stamp and
      does not move the sequence.  Then the held edges are handed on in sequence order, then
      one Watermark; numbers still missing are reported then as a gap.  A device restart or
      the end of the round gives up at once.  Larger gaps are reported at once, nothing
      held.  Whenever numbers are given up as lost, the next Watermark carries
      ``lost_from_ns`` (the watermark before the gap, or the round's start): presses in that
      span may be missing, so a decision over it is not guaranteed (the referee says so).
    * Clock trust (issue 10; ``check_clock``, off only for a simulator not in real time): a
      sequenced frame stamped before the previous one, or mapped more than 5 ms plus the
      model's error bound after its own arrival, a PONG mapped outside its round trip, a
      sequence number gone back by more than ``RESEND_DEPTH`` (a restart without HELLO), or
      no PONG within ``_PROBE_TIMEOUT_NS`` of a check, breaks the mapping: status
      ``"resyncing"``, a Problem, the timeline restarted and re-seeded by a HELLO round trip
      (then ``"connected"`` again).  Presses wait for the seed; one the new seed places more
      than 30 ms from its arrival is handed on at its arrival, never on the broken mapping,
      and the next Watermark carries ``lost_from_ns`` (always after a break) so that the
      decision says so.  A frame mapped more than 30 ms (plus the bound) before its arrival
      may be a busy host: a PING goes out at once and presses wait for its PONG.
    * Status: :class:`StatusChanged` only on change.  Problems: one :class:`Problem` per bad
      frame, sequence gap, echoed host frame or device restart, at most 5 a second; the rest
      are counted and reported as one count when their second is over (or when the round
      ends).
    * Silence: a connected device from which nothing arrived for ``silence_timeout_ns`` is
      lost: the output of :meth:`on_timer` says ``close``.
    * An unsolicited HELLO on a new timeline (the device restarted without being unplugged)
      is reported, resets the timeline and re-seeds the clock with a new HELLO_REQUEST.
    """

    def __init__(
        self,
        port: str,
        *,
        ping_interval_ns: int = _NS_PER_S,
        handshake_timeout_ns: int = _NS_PER_S,
        silence_timeout_ns: int = _NS_PER_S,
        reconnect_interval_ns: int = _NS_PER_S // 2,
        resend_timeout_ns: int = _RESEND_TIMEOUT_NS,
        angles: bool = True,
        angle_interval_us: int = 0,
        check_clock: bool = True,
    ) -> None:
        self._port = port
        self._ping_interval_ns = ping_interval_ns
        self._handshake_timeout_ns = handshake_timeout_ns
        self._silence_timeout_ns = silence_timeout_ns
        self._reconnect_interval_ns = reconnect_interval_ns  # only said in the status
        self._resend_timeout_ns = resend_timeout_ns
        self._angles = angles
        self._angle_interval_us = angle_interval_us
        # Asked of the device after each HELLO (PROTOCOL.md 4.12), so that it sends only the
        # readings this rule keeps; one that does not know the request sends them all. (A u16:
        # the rest of a longer interval is thinned here.)
        self._angle_rate = (encode(AngleRate(min(angle_interval_us, 0xFFFF)))
                            if angles and angle_interval_us > 0 else None)
        self._kept_angle: tuple[int, int] | None = None  # the last reading kept: stamp, status
        self._check_clock = check_clock  # off only for a simulator whose timer is not real time

        self.stats = McuStats()
        self._timeline = McuTimeline()
        self._decoder = FrameDecoder()
        self._reports = ReportLimit(_REPORTS_PER_SECOND)
        self._out = SessionOutput()  # the output of the call in progress

        self._state = _State.CLOSED
        self._status: tuple[str, str] | None = None
        self._ever_connected = False
        self._hello_sent_ns: int | None = None  # send time of the unanswered HELLO_REQUEST
        self._next_ping_ns = 0
        self._last_seq: int | None = None
        self._last_rx_ns = 0
        # Presses waiting for the clock (handshake, re-seeding): (frame, unwrapped stamp,
        # arrival ns): a press whose stamp the new seed cannot place near its arrival is
        # placed at its arrival (its time is unknown) and flagged.
        self._pending: list[tuple[Press | Release, int, int]] = []
        # Clock trust: the latest stamp in device order, a suspicion being checked (presses
        # wait for the PONG until `_probe_due_ns`) and a re-seed after a broken mapping.
        self._last_stamp_us: int | None = None
        self._probe_due_ns: int | None = None
        self._suspect: list[tuple[Press | Release, int, int]] = []
        self._reseeding = False
        self._watermark_ns: int | None = None
        self._repair: _Repair | None = None  # while sequence numbers are missing
        # Inputs stamped after this (host ns) may be missing: said on the next Watermark.
        self._lost_from_ns: int | None = None
        self._round_start_ns = 0
        self._carry: _Carry | None = None  # the previous round's end, until the next seq
        self._lamps: tuple[int, int] | None = None

    # -- state ---------------------------------------------------------------------------

    @property
    def port(self) -> str:
        return self._port

    @property
    def connected(self) -> bool:
        """True between a compatible HELLO and the end of the round."""
        return self._state is _State.CONNECTED

    @property
    def clock(self) -> ClockModel:
        """The clock model (reset, not replaced, on every round and device restart)."""
        return self._timeline.model

    # -- the transport's calls -------------------------------------------------------------

    def opened(self, now: int) -> SessionOutput:
        """The port is open: start a round (returns the HELLO_REQUEST to write)."""
        out = self._out = SessionOutput()
        # A fresh round: the device may have restarted (timer, sequence numbers) or even be
        # a different one, so nothing learned about the previous round carries over.
        self._decoder.reset()
        self._timeline.new_round()
        self._last_seq = None
        self._pending.clear()
        self._repair = None  # handed on (or given up) when the previous round ended
        self._last_stamp_us = None
        self._probe_due_ns = None
        self._suspect.clear()
        self._reseeding = False
        self._state = _State.HANDSHAKE
        self._round_start_ns = now
        self._last_rx_ns = now
        self._next_ping_ns = now  # the first PING goes out as soon as we are connected
        self._send_hello_request(now)
        return out

    def open_failed(self, detail: str) -> SessionOutput:
        """The port would not open; ``detail`` says why (reported once while it stays so)."""
        out = self._out = SessionOutput()
        self._set_status(LinkState.DISCONNECTED, detail)
        return out

    def lost(self, reason: str, now: int) -> SessionOutput:
        """The transport lost the port (read/write error, hang-up, end of file): end the
        round.  ``reason`` completes "was disconnected (...)".  Nothing if already over."""
        out = self._out = SessionOutput()
        if self._state is not _State.CLOSED:
            self._end(reason, now)
        return out

    def lamps(self, on: int, blink: int) -> bytes | None:
        """Set the lamp state (bitmasks of pad indices; ``blink`` wins over ``on``).

        Returns the LAMPS frame to write now when connected, else None; the state is
        remembered and re-sent on every connection.  Raises ValueError for masks outside
        16 bits.
        """
        frame = _lamps_frame(on, blink)  # validates before remembering
        self._lamps = (on, blink)
        return frame if self._state is _State.CONNECTED else None

    def next_deadline(self) -> int | None:
        """When :meth:`on_timer` is due next (host ns), or None when nothing is scheduled.

        It may move later without notice (each byte received pushes the silence deadline
        back): a transport may keep a timer armed for an earlier deadline and let
        :meth:`on_timer` find nothing due.
        """
        if self._state is _State.CLOSED:
            return None
        due = self._reports.count_due_ns()
        hello_sent = self._hello_sent_ns
        if hello_sent is not None:  # handshake, or re-seeding after a restart
            hello_due = hello_sent + self._handshake_timeout_ns
            due = hello_due if due is None else min(due, hello_due)
        if self._state is _State.CONNECTED:
            silence_due = self._last_rx_ns + self._silence_timeout_ns
            if hello_sent is None:
                silence_due = min(silence_due, self._next_ping_ns)
            due = silence_due if due is None else min(due, silence_due)
        if self._repair is not None:
            repair_due = min((gap.due_ns for gap in self._repair.gaps if gap.missing), default=None)
            if repair_due is not None:
                due = repair_due if due is None else min(due, repair_due)
        if self._probe_due_ns is not None:
            due = self._probe_due_ns if due is None else min(due, self._probe_due_ns)
        return due

    def on_timer(self, now: int, *, backlog: bool = False) -> SessionOutput:
        """Do what is due at ``now``: the held count of problems, giving up on frames asked
        for again, HELLO_REQUEST again, the silence check, a PING (skipped if ``backlog``:
        the transport has unwritten bytes, and the PING would leave long after its stamp)."""
        out = self._out = SessionOutput()
        if self._state is _State.CLOSED:
            return out
        self._report_held_back(now)
        if self._probe_due_ns is not None and now >= self._probe_due_ns:
            # No PONG in time to vouch for the mapping: it cannot be trusted either.
            self._distrust("no answer to the PING that was to confirm its clock", now)
        repair = self._repair
        if repair is not None:
            for gap in repair.gaps:
                if gap.missing and now >= gap.due_ns:
                    self._report_gap(gap.last, gap.seq, len(gap.missing), now)
                    gap.missing.clear()
            if repair.filled:
                self._release()
        sent = self._hello_sent_ns
        if sent is not None and now - sent >= self._handshake_timeout_ns:
            if self._state is _State.HANDSHAKE:
                self._set_status(LinkState.DISCONNECTED,
                    f"The MCU on {self._port} does not answer HELLO_REQUEST within "
                    f"{self._handshake_timeout_ns / _NS_PER_S:g} s; still asking.",
                )
            self._send_hello_request(now)
        if self._state is _State.CONNECTED:
            if now - self._last_rx_ns >= self._silence_timeout_ns:
                self._end(
                    f"nothing received for {self._silence_timeout_ns / _NS_PER_S:g} s "
                    f"(heartbeats are due every {MAX_HEARTBEAT_INTERVAL_US // 1000} ms)",
                    now,
                )
            elif self._hello_sent_ns is None and now >= self._next_ping_ns:
                if not backlog:
                    self._out.writes.append(self._timeline.ping(now))
                self._next_ping_ns = now + self._ping_interval_ns
        return out

    def receive(self, data: bytes, now: int) -> SessionOutput:
        """Bytes read from the port by ``now`` (read the clock right after reading the port:
        this is the receive end of the HELLO and PING round trips)."""
        out = self._out = SessionOutput()
        self._last_rx_ns = now
        for item in self._decoder.feed(data):
            if isinstance(item, ProtocolError):
                self._error(
                    f"Bad frame from the MCU on {self._port}: {item.reason}; "
                    f"{len(item.raw)} bytes dropped.",
                    now,
                )
                continue
            self.stats.frames += 1
            self._dispatch(item, now)
            if self._repair is not None and self._repair.filled:
                self._release()
        return out

    # -- round ends, status, problems ------------------------------------------------------

    def _end(self, reason: str, now: int) -> None:
        self._give_up_repair(now)  # the presses held back are real: hand them on first
        last_stamp = self._timeline.last_stamp
        if self._state is _State.CONNECTED and last_stamp is not None:
            # (A round that never connected keeps the carry of the last one that did.)
            self._carry = _Carry(self._last_seq, last_stamp % STAMP_MODULUS, self._last_rx_ns)
        # The held count belongs to the round that is ending.
        self._report_held_back(now, early=True)
        self._state = _State.CLOSED
        self._hello_sent_ns = None
        self._set_status(LinkState.DISCONNECTED,
            f"The MCU on {self._port} was disconnected ({reason}); "
            f"reconnecting every {self._reconnect_interval_ns / _NS_PER_S:g} s.",
        )
        self._out.close = True

    def _set_status(self, state: LinkState, detail: str) -> None:
        if self._status == (state, detail):
            return
        self._status = (state, detail)
        self._out.inputs.append(StatusChanged(state, detail))

    def _error(self, message: str, now: int) -> None:
        self.stats.errors += 1
        self._report(message, now)

    def _report(self, message: str, now: int) -> None:
        if self._reports.admit(now):
            self._out.inputs.append(Problem(message))

    def _report_held_back(self, now: int, *, early: bool = False) -> None:
        held = self._reports.take_held(now, early=early)
        if held:
            self._out.inputs.append(Problem(
                f"{held} more problem(s) with the MCU on {self._port}, too many at once to "
                "report one by one (see the link's statistics)"
            ))

    # -- output ----------------------------------------------------------------------------

    def _send_hello_request(self, now: int) -> None:
        self._hello_sent_ns = now  # one end of the bracket
        self._out.writes.append(_HELLO_REQUEST)

    # -- input: the press path -------------------------------------------------------------

    def _dispatch(self, msg: Message, now: int) -> None:
        if isinstance(msg, Hello):
            self._on_hello(msg, now)
        elif self._state is not _State.HANDSHAKE and self._state is not _State.CONNECTED:
            return  # INCOMPATIBLE: the frames of another protocol version mean nothing
        elif isinstance(msg, (Press, Release)):  # a tuple: `A | B` builds a new union per call
            resent = self._check_seq(msg.seq, msg.timestamp_us, now)  # placed by its own stamp
            mcu_us = self._stamp(msg.timestamp_us, resent, now)
            if self._timeline.ready and self._probe_due_ns is None:
                self._edge(msg, mcu_us)
            elif self._timeline.ready:  # the mapping is being checked: wait for the PONG
                self._suspect.append((msg, mcu_us, now))
            elif len(self._pending) < _MAX_PENDING_EDGES:
                self._pending.append((msg, mcu_us, now))
            else:
                self._error(
                    f"The MCU on {self._port} sent presses before its clock could be "
                    f"synchronised; dropped the {msg.__class__.__name__.upper()} seq {msg.seq}.",
                    now,
                )
        elif isinstance(msg, Heartbeat):
            resent = self._check_seq(msg.seq, msg.timestamp_us, now)
            mcu_us = self._stamp(msg.timestamp_us, resent, now)
            if self._timeline.ready and self._probe_due_ns is None and not resent:
                at_ns = self._timeline.map_edge(mcu_us)
                self._advance_watermark(at_ns, always=False)
                if self._repair is None:  # else the edges before it are still held back
                    self._out.inputs.append(HeldPads(_pads_of(msg.held), at_ns))
        elif isinstance(msg, Pong):
            verdict = self._timeline.on_pong(msg, now, _PONG_TOL_NS if self._check_clock else None)
            if verdict is False:
                self._distrust("a PONG that maps outside its own round trip", now)
            elif verdict and self._probe_due_ns is not None:
                self._trust_again()
        elif isinstance(msg, Angle):
            resent = self._check_seq(msg.seq, msg.timestamp_us, now)
            if self._angles and not resent and self._thinned(msg.timestamp_us, msg.status):
                return
            mcu_us = self._stamp(msg.timestamp_us, resent, now)
            # A resent reading is older than those already handed on: the spin detector
            # works on readings in time order and has moved on.
            if self._angles and self._timeline.ready and not resent:
                self._angle(msg, mcu_us)
        elif isinstance(msg, Angles):
            # One frame for a burst: its sequence and stamp (the newest reading's) are checked
            # once; each reading is then thinned and mapped like an ANGLE's.
            resent = self._check_seq(msg.seq, msg.timestamp_us, now)
            mcu_us = self._stamp(msg.timestamp_us, resent, now)
            if self._angles and self._timeline.ready and not resent:
                self._burst(msg, mcu_us)
        else:  # a host -> device message coming back: an echoing (non-raw) tty or a loop
            self._error(
                f"The MCU on {self._port} sent a host-to-device "
                f"{msg.__class__.__name__} frame; is the port echoing?",
                now,
            )

    # -- input: clock trust ------------------------------------------------------------------

    def _stamp(self, stamp_us: int, resent: bool, now: int) -> int:
        """Unwrap a sequenced frame's stamp and check it against the mapping (issue 10).

        Frames leave in stamp order (5.2), are never received before their stamp, and arrive
        within a few ms of it.  A stamp before the previous one (the timer stepped back or
        restarted) or mapping into the future (it jumped ahead) breaks the mapping: the clock
        is re-seeded.  One that maps too far in the past may be a busy host: a PING at once
        settles it, and presses wait for its PONG.  A frame sent again (RESEND) is older by
        nature and is not checked.  Returns the stamp unwrapped on the timeline in force.
        """
        mcu_us = self._timeline.unwrap(stamp_us)
        if resent:
            return mcu_us
        last, self._last_stamp_us = self._last_stamp_us, mcu_us
        if last is not None and mcu_us < last:
            return self._distrust(f"its timer went back {last - mcu_us} µs", now, stamp_us)
        if not self._timeline.ready or self._timeline.provisional or not self._check_clock:
            return mcu_us
        model = self._timeline.model
        at_ns = model.to_host_ns(mcu_us)
        bound = model.error_bound_ns(mcu_us)
        if at_ns > now + _FUTURE_TOL_NS + bound:
            return self._distrust(
                f"a frame stamped {(at_ns - now) / 1e6:.1f} ms after it arrived", now, stamp_us)
        if (now - at_ns > _LATE_TOL_NS + bound and self._probe_due_ns is None
                and self._hello_sent_ns is None):
            self._probe_due_ns = now + _PROBE_TIMEOUT_NS
            self._out.writes.append(self._timeline.ping(now))
        return mcu_us

    def _distrust(self, why: str, now: int, stamp_us: int | None = None) -> int:
        """The mapping is broken: flag the source, re-seed the clock (HELLO round trip), and
        hold the presses until then; those the new seed cannot place go on at their arrival.
        Returns ``stamp_us`` unwrapped on the new timeline (0 without one)."""
        self._probe_due_ns = None
        self._give_up_repair(now)  # the numbers still missing will not come back in time
        held = self._suspect + self._pending
        self._suspect, self._pending = [], []
        self._mark_lost()
        self._report(f"The clock of the MCU on {self._port} cannot be trusted ({why}); "
                     "re-seeding it; presses meanwhile are placed at their arrival if their "
                     "stamps cannot be placed, and the decisions say so.", now)
        self._set_status(LinkState.RESYNCING, f"The MCU on {self._port} is connected, but its clock "
                                      f"cannot be trusted ({why}); re-seeding it.")
        self._reseeding = True
        self._timeline.restart()
        # Held frames are put on the new timeline in device order, then the current one.
        for msg, _, arrival in held:
            self._pending.append((msg, self._timeline.unwrap(msg.timestamp_us), arrival))
        mcu_us = 0 if stamp_us is None else self._timeline.unwrap(stamp_us)
        self._last_stamp_us = None if stamp_us is None else mcu_us
        if self._hello_sent_ns is None:
            self._send_hello_request(now)  # its answer's round trip seeds the clock again
        return mcu_us

    def _trust_again(self) -> None:
        """The PONG vouched for the mapping (the host was only busy): hand the held presses on."""
        self._probe_due_ns = None
        held, self._suspect = self._suspect, []
        for msg, mcu_us, _ in held:
            self._edge(msg, mcu_us)

    def _edge(self, msg: Press | Release, mcu_us: int) -> None:
        at_ns = self._timeline.map_edge(mcu_us)
        edge = PadEdge(msg.pad_indices, isinstance(msg, Press), at_ns, mcu_us, msg.seq)
        if self._repair is not None:
            self._repair.edges.append(edge)
        else:
            self._out.inputs.append(edge)
        # Always follow an edge with a watermark, even an unchanged one: the consumer settles
        # the scan on the watermark, and waiting for the next HEARTBEAT would cost ~100 ms.
        self._advance_watermark(at_ns, always=True)

    def _unknown_time_edge(self, msg: Press | Release, mcu_us: int, arrival: int) -> None:
        """A press whose stamp no mapping can place: never judged on a broken mapping, it is
        placed at its arrival (the latest it can have been), and the watermark after it says
        that presses since the last trusted one may be misplaced (the decision is flagged)."""
        self._mark_lost()
        floor = self._watermark_ns if self._watermark_ns is not None else self._round_start_ns
        at_ns = max(arrival, floor)
        edge = PadEdge(msg.pad_indices, isinstance(msg, Press), at_ns, mcu_us, msg.seq)
        if self._repair is not None:
            self._repair.edges.append(edge)
        else:
            self._out.inputs.append(edge)
        self._advance_watermark(at_ns, always=True)

    def _thinned(self, stamp_us: int, status: int) -> bool:
        """Whether a reading taken at ``stamp_us`` (the device's wrapping timer) comes within
        ``angle_interval_us`` of the last one kept, with the same sensor status (the rule of
        console/shell/angle_thinning.py, on the device's clock). At 1 kHz three readings in
        four are dropped here, before they are mapped (an ANGLE's before its stamp is even
        checked: the kept ones check the clock often enough)."""
        kept = self._kept_angle
        if (kept is not None and status == kept[1]
                and (stamp_us - kept[0]) % STAMP_MODULUS < self._angle_interval_us):
            return True
        self._kept_angle = (stamp_us, status)
        return False

    def _angle(self, msg: Angle, mcu_us: int) -> None:
        at_ns = self._timeline.map_angle(mcu_us)
        self._out.inputs.append(AngleReading(msg.raw_angle, msg.status, at_ns, mcu_us, msg.seq))

    def _burst(self, msg: Angles, mcu_us: int) -> None:
        """Hand on the readings of an ANGLES frame that thinning keeps, each at its own time
        (``mcu_us``, the frame's unwrapped stamp, less the reading's age)."""
        stamp, status, seq = msg.timestamp_us, msg.status, msg.seq
        for age, raw in msg.readings:
            if self._thinned((stamp - age) % STAMP_MODULUS, status):
                continue
            at_us = mcu_us - age
            self._out.inputs.append(AngleReading(raw, status, self._timeline.map_angle(at_us), at_us, seq))

    def _advance_watermark(self, at_ns: int, *, always: bool) -> None:
        repair = self._repair
        if repair is not None:  # handed on when the gap is settled, after the held edges
            if repair.mark_ns is None or at_ns > repair.mark_ns:
                repair.mark_ns = at_ns
            repair.mark_always = repair.mark_always or always
            return
        watermark = self._watermark_ns
        lost_from, self._lost_from_ns = self._lost_from_ns, None
        if watermark is None or at_ns > watermark:
            self._watermark_ns = watermark = at_ns
        elif not always and lost_from is None:
            return
        self._out.inputs.append(Watermark(watermark, lost_from))

    def _check_seq(self, seq: int, stamp_us: int, now: int) -> bool:
        """Follow the sequence; True if ``seq`` is a missing number sent again (5.9)."""
        repair = self._repair
        if repair is not None:
            for pending in repair.gaps:
                if seq in pending.missing:
                    pending.missing.discard(seq)
                    self.stats.repaired_frames += 1
                    return True  # it does not move the sequence (5.3)
        last, self._last_seq = self._last_seq, seq
        if last is None:
            carry, self._carry = self._carry, None
            if carry is not None:
                self._resume(carry, seq, stamp_us, now)
            return False
        gap = (seq - last - 1) % SEQ_MODULUS
        if gap == 0:
            return False
        if gap >= SEQ_MODULUS // 2 and (last - seq) % SEQ_MODULUS > RESEND_DEPTH:
            # The counter went back further than a late resent frame could: the device
            # restarted and its HELLO was lost (5.3).  A small step back is a repeat.
            self._last_seq = seq
            self._distrust(f"its sequence number went back from {last} to {seq}: "
                           "it restarted without a HELLO", now)
            return False
        if gap < SEQ_MODULUS // 2:
            if gap <= RESEND_DEPTH:  # also right after connecting: held presses wait anyway
                self._ask_again(last, seq, gap, now)
            else:  # the device no longer holds them all
                self._report_gap(last, seq, gap, now)
        else:
            self._error(
                f"Out-of-order or repeated frame from the MCU on {self._port}: "
                f"sequence number {seq} after {last}.",
                now,
            )
        return False

    def _resume(self, carry: _Carry, seq: int, stamp_us: int, now: int) -> None:
        """The first sequenced frame after the port was lost and opened again.  A box whose
        timer ran on kept its power (a cable blip): what it sent while the port was away is
        asked for again (the newest `RESEND_DEPTH` frames it still holds) and judged on its
        stamps; what it no longer holds is lost.  A box that restarted meanwhile has nothing
        to send: everything since the last watermark may be lost, and the next one says so."""
        if carry.seq is None:  # lost before its first numbered frame: what was missed is unknown
            self._mark_lost()
            return
        away_ns = now - carry.at_ns
        ahead_ns = (stamp_us - carry.stamp_us) % STAMP_MODULUS * 1000
        gap = (seq - carry.seq - 1) % SEQ_MODULUS
        # (A simulator whose timer is not real time, `check_clock` off, is judged by its
        # sequence number alone.)
        ran_on = not self._check_clock or abs(ahead_ns - away_ns) <= _CONTINUITY_TOL_NS + away_ns // 100
        if gap >= SEQ_MODULUS // 2 or not ran_on:
            self._mark_lost()
            return
        if gap == 0:
            return
        asked = min(gap, RESEND_DEPTH)
        if asked < gap:  # older than the box keeps: gone (the host was told of the unplug)
            self.stats.lost_frames += gap - asked
            self._mark_lost()
        self._ask_again((seq - asked - 1) % SEQ_MODULUS, seq, asked, now)

    def _mark_lost(self) -> None:
        """Inputs stamped after everything handed on so far may be missing: the next
        watermark says so (`Watermark.lost_from_ns`)."""
        floor = self._watermark_ns if self._watermark_ns is not None else self._round_start_ns
        if self._lost_from_ns is None or floor < self._lost_from_ns:
            self._lost_from_ns = floor

    def _ask_again(self, last: int, seq: int, gap: int, now: int) -> None:
        first = (last + 1) % SEQ_MODULUS
        self._out.writes.append(encode(Resend(first, gap)))
        if self._repair is None:
            self._repair = _Repair(first)
        missing = {(first + i) % SEQ_MODULUS for i in range(gap)}
        self._repair.gaps.append(_Gap(last, seq, missing, now + self._resend_timeout_ns))

    def _report_gap(self, last: int, seq: int, lost: int, now: int) -> None:
        self.stats.lost_frames += lost
        # What was lost was stamped after everything handed on so far (5.2): the decisions
        # over that span are not guaranteed, and the next watermark says so.
        self._mark_lost()
        self._report(
            f"Lost {lost} frame(s) from the MCU on {self._port}: sequence number jumped "
            f"from {last} to {seq}; a press or release may be missing.",
            now,
        )

    def _give_up_repair(self, now: int) -> None:
        """Report what is still missing as lost and hand on what was held back."""
        repair = self._repair
        if repair is None:
            return
        for gap in repair.gaps:
            if gap.missing:
                self._report_gap(gap.last, gap.seq, len(gap.missing), now)
                gap.missing.clear()
        self._release()

    def _release(self) -> None:
        """Hand on the held edges in device (sequence) order, then the watermark."""
        repair = self._repair
        if repair is None:
            return
        self._repair = None
        base = repair.base
        for edge in sorted(repair.edges, key=lambda e: (e.seq - base) % SEQ_MODULUS):
            self._out.inputs.append(edge)
        if repair.mark_ns is not None:
            self._advance_watermark(repair.mark_ns, always=repair.mark_always)

    # -- input: handshake and clock --------------------------------------------------------

    def _on_hello(self, hello: Hello, now: int) -> None:
        self._kept_angle = None  # a device that says HELLO may have started its timer again
        if hello.protocol_version != PROTOCOL_VERSION:
            self._give_up_repair(now)  # pressed on the compatible firmware: they count
            self._state = _State.INCOMPATIBLE
            self._hello_sent_ns = None
            self._pending.clear()
            self._set_status(LinkState.INCOMPATIBLE,
                f"The MCU on {self._port} (firmware {hello.firmware!r}) speaks protocol "
                f"version {hello.protocol_version}, but this console speaks version "
                f"{PROTOCOL_VERSION}; update the firmware or the console.",
            )
            return
        sent_ns = self._hello_sent_ns
        if sent_ns is None:
            self._on_unsolicited_hello(hello, now)
            return
        self._hello_sent_ns = None
        # The HELLO carries no request id: if an earlier request was answered late, this
        # sample is off.  The first PONG (which has an id) replaces it.
        if not self._timeline.seed_from_hello(sent_ns, now, hello.timestamp_us):
            self._send_hello_request(now)  # too slow to trust; ask again
            return
        if self._state is not _State.CONNECTED:
            self._state = _State.CONNECTED
            if self._ever_connected:
                self.stats.reconnects += 1
            self._ever_connected = True
            self._set_status(LinkState.CONNECTED,
                f"The MCU {hello.firmware!r} on {self._port} is connected "
                f"(protocol {hello.protocol_version}, {hello.pad_count} pads, "
                f"timer resolution {hello.timer_resolution_us} µs).",
            )
        if self._lamps is not None:  # a new or restarted device has its lamps off
            self._out.writes.append(_lamps_frame(*self._lamps))
        if self._angle_rate is not None:  # and sends every reading
            self._out.writes.append(self._angle_rate)
        if self._reseeding:
            self._reseeding = False
            self._set_status(LinkState.CONNECTED, f"The clock of the MCU on {self._port} is re-seeded.")
            self._next_ping_ns = now  # the first PONG replaces the provisional seed
        pending, self._pending = self._pending, []
        # In device (stamp) order: a frame sent again on RESEND may have come after later ones.
        for msg, pending_us, arrival in sorted(pending, key=lambda item: item[1]):
            at_ns = self._timeline.model.to_host_ns(pending_us)
            if arrival - _LATE_TOL_NS <= at_ns <= arrival + _FUTURE_TOL_NS:
                self._edge(msg, pending_us)
            else:
                self._unknown_time_edge(msg, pending_us, arrival)

    def _on_unsolicited_hello(self, hello: Hello, now: int) -> None:
        """A HELLO nobody asked for: a power-up HELLO (restart) or a duplicate answer."""
        last = self._timeline.last_stamp
        if last is not None and self._state is not _State.INCOMPATIBLE:
            ahead = (hello.timestamp_us - last) % STAMP_MODULUS
            if ahead < _HELLO_CONTINUITY_US:
                return  # same timeline: a late answer to a repeated HELLO_REQUEST
        # The restarted device no longer holds the missing frames; the held edges were
        # mapped on the old timeline, so they go before it is forgotten.
        self._give_up_repair(now)
        if self._state is _State.CONNECTED:
            self._mark_lost()  # pressed while it restarted: never sent
            self._report(
                f"The MCU on {self._port} restarted (it sent a power-up HELLO); "
                "resynchronising its clock.",
                now,
            )
        elif self._state is _State.INCOMPATIBLE:
            self._state = _State.HANDSHAKE  # new firmware, it seems: its presses count again
        if self._probe_due_ns is not None:
            self._trust_again()  # pressed before the restart, on the old timeline
        self._timeline.restart()
        self._last_seq = None
        self._last_stamp_us = None
        self._timeline.unwrap(hello.timestamp_us)
        self._send_hello_request(now)  # the answer's round trip seeds the clock
