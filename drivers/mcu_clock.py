"""The MCU's timeline on host time: its stamps unwrapped, its clock seeded and kept by round trips.

Contract: `McuTimeline` is pure (no I/O, no clock reads; ``now`` is host monotonic ns). It
unwraps the device's 32-bit microsecond stamps (`unwrap`), feeds the `ClockModel` the round
trips that bracket a device stamp: first the answered HELLO_REQUEST (`seed_from_hello`, a
provisional seed: a HELLO carries no request id, so an earlier request answered late would
make it wrong), then PINGs it numbers and remembers (`ping`, at most 8 outstanding) and their
PONGs (`on_pong`; the first usable one replaces the provisional seed). It maps stamps to host
time for presses (`map_edge`: never earlier than an earlier-or-equal stamp already mapped) and
for angles (`map_angle`: never going back), each on its own so the press path never depends
on the angle stream. `restart` forgets the timeline (a device restart), keeping the model
object; `new_round` does that for a new opening of the port, provisional seed included.
"""

from __future__ import annotations

from drivers.clock_sync import ClockModel
from firmware_proto import PING_ID_MODULUS, Ping, Pong, TimestampUnwrapper, encode

__all__ = ["McuTimeline"]

# Outstanding pings kept for matching; an unanswered ping is forgotten after this many newer.
_MAX_OUTSTANDING_PINGS = 8


class McuTimeline:
    """One device's timeline; see the module docstring."""

    def __init__(self) -> None:
        self.model = ClockModel()
        self._unwrapper = TimestampUnwrapper()
        self._seed_provisional = False  # the model holds only the HELLO sample
        self._pings: dict[int, int] = {}  # ping_id -> host send ns
        self._next_ping_id = 0
        # (mcu_us, at_ns) of the latest frame mapped in device order, see map_edge.
        self._last_mapped: tuple[int, int] | None = None
        self._last_angle_ns: int | None = None  # at_ns of the latest angle mapped, see map_angle

    @property
    def ready(self) -> bool:
        """The clock is seeded: stamps can be mapped."""
        return self.model.ready

    @property
    def provisional(self) -> bool:
        """Only the HELLO's round trip seeds the clock (no PONG yet): it may be off."""
        return self._seed_provisional

    @property
    def last_stamp(self) -> int | None:
        """The latest raw (wrapped) device stamp unwrapped on this timeline, or None."""
        return self._unwrapper.last

    def new_round(self) -> None:
        """A new opening of the port: nothing learned about the previous round carries over."""
        self.restart()
        self._seed_provisional = False

    def restart(self) -> None:
        """The device's timer started again: forget the timeline and the clock's samples."""
        self._unwrapper.reset()
        self.model.reset()
        self._pings.clear()
        self._last_mapped = None
        self._last_angle_ns = None

    def unwrap(self, stamp_us: int) -> int:
        return self._unwrapper.unwrap(stamp_us)

    def seed_from_hello(self, sent_ns: int, now: int, stamp_us: int) -> bool:
        """The HELLO answering a request written at `sent_ns` arrived at `now`: seed the clock
        (provisionally). False if the round trip was too slow to trust."""
        mcu_us = self.unwrap(stamp_us)
        if not self.model.add_sample(sent_ns, now, mcu_us):
            return False
        self._seed_provisional = True
        return True

    def ping(self, now: int) -> bytes:
        """The PING frame to write at `now` (remembered for its PONG)."""
        ping_id = self._next_ping_id
        self._next_ping_id = (ping_id + 1) % PING_ID_MODULUS
        while len(self._pings) >= _MAX_OUTSTANDING_PINGS:
            del self._pings[next(iter(self._pings))]  # the oldest: surely lost
        self._pings[ping_id] = now
        return encode(Ping(ping_id))

    def on_pong(self, pong: Pong, now: int, tolerance_ns: int | None) -> bool | None:
        """Take a PONG: None if it answers no PING remembered; False if its stamp maps outside
        its own round trip by more than `tolerance_ns` plus the model's error bound (the timer
        stepped or restarted: the mapping is broken, and the sample is not taken); True
        otherwise.  `tolerance_ns` None: not checked."""
        mcu_us = self.unwrap(pong.timestamp_us)
        sent_ns = self._pings.pop(pong.ping_id, None)
        if sent_ns is None:
            return None  # forgotten (too old) or from before a restart: no usable bracket
        if tolerance_ns is not None and self.model.ready and not self._seed_provisional:
            # The device stamped the PONG between our PING and its arrival, whatever the
            # round trip: a mapping that puts it elsewhere is wrong, however the fit looks.
            at_ns = self.model.to_host_ns(mcu_us)
            tolerance_ns += self.model.error_bound_ns(mcu_us)
            if at_ns < sent_ns - tolerance_ns or at_ns > now + tolerance_ns:
                return False
        if self._seed_provisional and 0 <= now - sent_ns <= self.model.max_rtt_ns:
            # The first usable PONG replaces the HELLO seed, whose bracket may be wrong.
            self._seed_provisional = False
            self.model.reset()
        self.model.add_sample(sent_ns, now, mcu_us)
        return True

    def map_edge(self, mcu_us: int) -> int:
        """MCU stamp -> host ns, never earlier than an earlier-or-equal stamp already mapped.

        Each new clock sample moves the line by a few microseconds; without the clamp a
        PRESS could map to just before the HEARTBEAT stamped before it (whose watermark the
        consumer may already have acted on).  The clamp only holds while stamps are within
        that shift of each other, so it heals by itself.  A stamp older than the last one (a
        frame out of device order) is mapped as is: it must show its own time.
        """
        at_ns = self.model.to_host_ns(mcu_us)
        last = self._last_mapped
        if last is None or mcu_us >= last[0]:
            if last is not None and at_ns < last[1]:
                at_ns = last[1]
            self._last_mapped = (mcu_us, at_ns)
        return at_ns

    def map_angle(self, mcu_us: int) -> int:
        """MCU stamp -> host ns for an angle reading, never earlier than the previous one's."""
        # Mapped apart from presses (not through map_edge), so the press path never depends
        # on the angle stream; clamped to never go back, since the spin detector unwraps and
        # differentiates readings in time order and a new clock sample may shift the line
        # back by a few microseconds.
        at_ns = self.model.to_host_ns(mcu_us)
        if self._last_angle_ns is not None and at_ns < self._last_angle_ns:
            at_ns = self._last_angle_ns
        self._last_angle_ns = at_ns
        return at_ns
