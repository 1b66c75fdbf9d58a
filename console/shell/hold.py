"""The console's own hold-ups, decided without I/O: when a late decision is a hold, what is read
meanwhile, and when the hold is over. Pure: every call is given `now` (host monotonic ns).

Contract: a decision the referee owed at `due`, still owed at `now`, is a hold when it is more
than `hold_ns` late (`overdue`; less is the loop's jitter). `begin(due, now, broker)` starts
reading the hold out: the sources read by threads get `grace_ns`, the broker (when there is one)
up to `broker_wait_ns` to hand on what it kept. Inputs read meanwhile (`place`) that happened
before the overdue decision are fed at once, as read just before it; the others wait for it
(`deferred`, in the order read). `broker_wait(now)` is how long the hold still waits for the
broker; `broker_caught_up(due, now)` says the broker has handed on all it kept (True: the hold
can end now). `end()` ends it: the overdue deadline and what waited, to feed after deciding it;
while that is fed (`ending`) no new hold begins. `said(due)` is True once per hold: the host is
told once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from console.engine.model import input_stamp
from console.games.kind import GameInput

__all__ = ["Hold", "happened_before"]

Deferred = tuple[Sequence[GameInput], int]  # inputs read together, and when they were read


def happened_before(inputs: Sequence[GameInput], t: int) -> bool:
    """Whether `inputs` (read together: a scan and its watermark) began before `t`: each names
    a time at its source and the earliest is before `t`."""
    stamps = [input_stamp(inp) for inp in inputs]
    known = [stamp for stamp in stamps if stamp is not None]
    return bool(known) and len(known) == len(stamps) and min(known) < t


@dataclass
class Hold:
    """See the module docstring."""

    hold_ns: int
    grace_ns: int
    broker_wait_ns: int
    since: int | None = None  # the overdue deadline of the hold being read out (None: none)
    grace_until: int = 0  # the end of its grace for the sources read by threads
    broker_until: int | None = None  # waiting for the broker until then (None: not)
    deferred: list[Deferred] = field(default_factory=list)
    ending: bool = False  # what waited is being fed: no new hold begins meanwhile
    _said: int | None = None  # the overdue deadline of the hold last said

    def overdue(self, due: int, now: int) -> bool:
        """The decision due at `due` and still owed at `now` is a new hold."""
        return self.since is None and not self.ending and now - due > self.hold_ns

    def begin(self, due: int, now: int, *, broker: bool) -> None:
        self.since = due
        self.grace_until = now + self.grace_ns
        self.broker_until = now + self.broker_wait_ns if broker else None

    def said(self, due: int) -> bool:
        """True the first time the hold of `due` is to be said."""
        if self._said == due:
            return False
        self._said = due
        return True

    def place(self, inputs: Sequence[GameInput], received: int, fed_at: int) -> int | None:
        """During a hold: when to feed `inputs` read at `received`, just before the overdue
        decision; None when they happened after it (or name no time): they wait for it."""
        assert self.since is not None
        if not happened_before(inputs, self.since):
            self.deferred.append((inputs, received))
            return None
        return max(fed_at, self.since - 1)

    def broker_wait(self, now: int) -> int | None:
        """When to look again, while the hold waits for the broker (None: it does not)."""
        waiting = self.broker_until
        return waiting if self.since is not None and waiting is not None and now < waiting else None

    def broker_caught_up(self, due: int, now: int) -> bool:
        """The broker handed on all it kept for the hold of `due`: True when the hold can end now
        (its grace is over too). An earlier hold's answer, late, changes nothing."""
        if self.since != due:
            return False
        self.broker_until = None
        return now >= self.grace_until

    def end(self) -> tuple[int | None, list[Deferred]]:
        """End the hold: its overdue deadline (None: none was being read out) and what waited."""
        held, self.since = self.since, None
        self.broker_until = None
        deferred, self.deferred = self.deferred, []
        return held, deferred
