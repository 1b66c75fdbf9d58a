"""The referee's one timer, and the console's own hold-ups read out before an overdue decision.

Contract: `Deadlines` keeps one `asyncio.TimerHandle` armed for the referee's next deadline
(`arm(now)`, after every change of its state) and fires it on time (`settle`). Held up (a
stall of the Pi, a slow disk, a busy loop) past a decision it owes, the console never counts
its own lateness against a player: before it judges the overdue deadline it reads what waited
on its sources (`read_out`: each MCU link's port at once; sources read by threads, a GPIO
pin's edges, get HOLD_GRACE_S to hand theirs on; the broker is caught up with, a host command
sent during the hold included, by a round trip through it, waited for at most
HOLD_BROKER_WAIT_S), and an input that happened before the deadline is judged as read just
before it (`place`); what happened after it, or names no time, waits for the decision and is
then fed in the order it came. However the hold is first seen (the timer late, or an input
read late), it is read out the same way. The hold is said (`ConsoleHeld`) and journalled with
the decision. The decisions themselves (console/shell/hold.py) are pure.

It reaches the console through callables: `next_deadline()` and `on_timer(now)` are the
referee's, `decided(outputs, now, held_ns)` carries out what a deadline decided,
`feed(inputs, received)` hands on what waited, `say(event)` says the hold, `read_out()` reads
every link, `has_broker()` says whether there is a broker to catch up with and
`after_broker(callback)` asks it for a round trip.

A bug in the referee on its own timer stops `run` with that error (`broken`: the daemon exits,
systemd starts it again and it resumes from the journal): a clock that silently stopped would
cost more than the restart.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Sequence

from console.engine.events import Event
from console.engine.model import NS_PER_MS, Output, input_stamp
from console.games.kind import GameInput
from console.notices import ConsoleHeld
from console.shell.hold import Hold
from console.shell.timers import Timers

__all__ = ["HOLD_GRACE_S", "HOLD_NS", "Deadlines"]

log = logging.getLogger("chgk.console")

HOLD_NS = 20 * NS_PER_MS  # a timer this late means the console itself was held up
# After a hold, before the overdue decision: time for sources read by threads (GPIO edges) to
# hand on what they read meanwhile; an MCU's port is read at once (McuLink.drain).
HOLD_GRACE_S = 0.02
HOLD_GRACE_NS = round(HOLD_GRACE_S * 1e9)
# ... and for the broker to hand on what it kept for the console (a round trip: ~1 ms; longer
# only when the broker itself is held up, and then not for ever).
HOLD_BROKER_WAIT_NS = 500 * NS_PER_MS


class Deadlines:
    """See the module docstring."""

    def __init__(
        self,
        *,
        clock: Callable[[], int],
        timers: Timers,
        next_deadline: Callable[[], int | None],
        on_timer: Callable[[int], list[Output]],
        decided: Callable[[list[Output], int, int], None],
        feed: Callable[[Sequence[GameInput], int], None],
        say: Callable[[Event], None],
        report_error: Callable[[str, str], None],
        read_out: Callable[[], None],
        has_broker: Callable[[], bool],
        after_broker: Callable[[Callable[[], None]], None],
    ) -> None:
        self._clock = clock
        self._timers = timers
        self._next_deadline = next_deadline
        self._on_referee_timer = on_timer
        self._decided = decided
        self._feed = feed
        self._say = say
        self._report_error = report_error
        self._read_out = read_out
        self._has_broker = has_broker
        self._after_broker = after_broker
        self._timer: asyncio.TimerHandle | None = None
        self._timer_deadline: int | None = None
        # The console's own hold-ups, read out before an overdue decision (console/shell/hold.py).
        self._hold = Hold(HOLD_NS, HOLD_GRACE_NS, HOLD_BROKER_WAIT_NS)
        self.fed_at = 0  # the latest `now` fed to the referee (never goes back)
        # The referee's next deadline as of its last outputs (every change of its state is
        # carried out, which asks it): `place` checks for an overdue one without asking again.
        self.due: int | None = None
        self.broken: asyncio.Future[None] | None = None  # run's: fails with the timer's bug

    def place(self, inputs: Sequence[GameInput], now: int) -> int | None:
        """The time to hand `inputs`, received at `now`, to the referee at (never before what
        it was fed last), or None: they wait for an overdue decision being read out.

        Received after a deadline the referee is still owed (the console was late: held up),
        inputs that all happened before it are judged as received just before it, so its
        decision sees them, as it would have had the console not been held up; otherwise the
        overdue decision is taken first."""
        due = self.due
        if due is not None and now >= due:
            if self._hold.overdue(due, now):
                self._after_hold(due, now)  # the sources are read out first (they feed back)
            if self._hold.since is not None:
                placed = self._hold.place(inputs, now, self.fed_at)
                if placed is None:
                    return None  # fed once the overdue deadline is decided
                now = placed  # as read just before the decision
            else:
                now = self._catch_up(inputs, due, now)
        self.fed_at = max(self.fed_at, now)  # the referee's time never goes back
        return self.fed_at

    def arm(self) -> None:
        """Keep the timer armed for the referee's next deadline (its state just changed)."""
        deadline = self.due = self._next_deadline()
        if self._hold.since is not None:
            return  # a hold is read out: its end decides what is due (`_end_hold`)
        if self._timer is not None:
            if self._timer_deadline is not None and (deadline is None or self._timer_deadline <= deadline):
                # Armed for no later than needed: firing early only re-arms. The usual case
                # with the top streaming, whose silence deadline moves on with every sample.
                return
            self._timer.cancel()
            self._timer = None
        if deadline is None:
            return
        # From the clock, not from `now`: a decision taken at its own (past) time after a hold
        # must not put the next deadline off by the hold's length.
        self._timer = self._timers.call_later((deadline - self._clock()) / 1e9, self._on_timer)
        self._timer_deadline = deadline

    def settle(self, now: int, held_ns: int = 0) -> None:
        """Fire what is due at `now` (`held_ns`: the decision comes that late, held up)."""
        now = self.fed_at = max(now, self.fed_at)
        try:
            outputs = self._on_referee_timer(now)
        except Exception as exc:
            # A bug: the loop would only log it and the clocks would stop for the rest of the
            # evening. `run` ends with it instead (see the module docstring).
            broken = self.broken
            if broken is None or broken.done():
                raise
            log.exception("the referee failed on its timer; stopping (the journal resumes the fight)")
            self._report_error("console", "internal error on the timer (see the log): the console "
                                          "stops, restarts and resumes the fight from the journal")
            broken.set_exception(exc)
            return
        self._decided(outputs, now, held_ns)

    def _catch_up(self, inputs: Sequence[GameInput], due: int, now: int) -> int:
        """The console reads `inputs` at `now`, late with the decision due at `due` (and maybe
        more): the decisions due before the inputs happened are taken first, each at its own
        time, and the inputs are then judged as read just before the next one (see `place`).
        Returns the time to hand them on at."""
        held = now - due if now - due > HOLD_NS else 0
        if held and not self._hold.ending:  # (the hold being ended was said already)
            self._say_hold(due, now)
        stamps = [stamp for inp in inputs if (stamp := input_stamp(inp)) is not None]
        # When the earliest of them happened; None for none, or one that names no time.
        first = min(stamps) if stamps and len(stamps) == len(inputs) else None
        current: int | None = due
        while current is not None and current <= now:
            if first is not None and first < current:
                return max(self.fed_at, current - 1)
            self.settle(current, held)
            if self.due is not None and self.due <= current:  # still owed: decide it now
                self.settle(now, held)
                break
            current = self.due
        return now

    def _on_timer(self) -> None:
        self._timer = None
        now = self._clock()
        due = self._timer_deadline
        if (due is not None and self._hold.since is None and now - due > HOLD_NS
                and self._after_hold(due, now)):
            return
        waiting = self._hold.broker_wait(now)
        if waiting is not None:
            # The grace is over, the broker not caught up yet: wait for it (`_broker_caught_up`).
            self._timer = self._timers.call_later((waiting - now) / 1e9, self._on_timer)
            return
        self._end_hold(now)

    def _after_hold(self, due: int, now: int) -> bool:
        """The decision due at `due` is still owed at `now`: the console was held up. Say so,
        read what waited on every source (see the module docstring) and decide once they are
        read out. False outside an event loop (a console driven by hand: nothing to wait for)."""
        if not self._timers.live:
            return False
        broker = self._has_broker()
        self._hold.begin(due, now, broker=broker)
        self._say_hold(due, now)
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._timers.call_later(HOLD_GRACE_S, self._on_timer)
        self._timer_deadline = due
        if broker:
            # At once when the link is down; one that comes after this hold ended is ignored.
            self._after_broker(functools.partial(self._broker_caught_up, due))
        self._read_out()  # what the links read is fed now, judged by when it happened (`place`)
        return True

    def _broker_caught_up(self, due: int) -> None:
        """The broker has handed on all it kept for the console: once the grace is over too,
        the hold (of the deadline `due`) is decided now."""
        if self._hold.broker_caught_up(due, self._clock()):
            if self._timer is not None:
                self._timer.cancel()
            self._on_timer()

    def _end_hold(self, now: int) -> None:
        """The sources are read out: decide what is due, then feed what waited for that, in
        the order it came (each after the decisions due before it happened: `place`)."""
        held, deferred = self._hold.end()
        if held is not None:
            self.settle(max(self.fed_at, held), now - held)  # the overdue decision first
        self._hold.ending = True  # what was read in this hold is not a new hold
        try:
            for inputs, received in deferred:
                self._feed(inputs, received)
        finally:
            self._hold.ending = False
        self.settle(now, 0 if held is None else now - held)

    def _say_hold(self, due: int, now: int) -> None:
        """The console found the decision due at `due` still owed at `now`: say so, once."""
        if not self._hold.said(due):
            return
        log.warning("the console was held up %.0f ms past a deadline; its sources are read first",
                    (now - due) / NS_PER_MS)
        self._say(ConsoleHeld(t_ns=now, held_ms=round((now - due) / NS_PER_MS, 3), deadline_ns=due))

