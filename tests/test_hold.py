"""The console's own hold-ups, decided purely (console/shell/hold.py), on hand-set times: a late
decision is a hold only past 20 ms; what was read meanwhile is fed before the overdue decision
if it happened before it, after it otherwise, in the order read; the broker and the grace both
end the hold; each hold is said once."""

from __future__ import annotations

from console.engine.model import Press, Watermark
from console.shell.hold import Hold

MS = 1_000_000
DUE = 10_000 * MS


def hold() -> Hold:
    return Hold(hold_ns=20 * MS, grace_ns=20 * MS, broker_wait_ns=500 * MS)


def scan(at: int) -> list[Press | Watermark]:
    return [Press("mcu", "mcu:0", at), Watermark("mcu", at)]


def test_only_a_decision_more_than_20_ms_late_is_a_hold() -> None:
    h = hold()
    assert not h.overdue(DUE, DUE + 20 * MS) and h.overdue(DUE, DUE + 20 * MS + 1)
    h.begin(DUE, DUE + 100 * MS, broker=True)
    assert not h.overdue(DUE, DUE + 200 * MS)  # one at a time
    h.end()
    h.ending = True  # what waited is being fed: no new hold meanwhile
    assert not h.overdue(DUE, DUE + 200 * MS)


def test_what_happened_before_the_deadline_is_fed_before_it_the_rest_waits_in_order() -> None:
    h = hold()
    h.begin(DUE, DUE + 1000 * MS, broker=False)
    assert h.place(scan(DUE - 40 * MS), DUE + 1001 * MS, fed_at=DUE - 500 * MS) == DUE - 1
    later, unstamped = scan(DUE + 300 * MS), [Watermark("mcu", DUE + 400 * MS)]
    assert h.place(later, DUE + 1002 * MS, fed_at=0) is None
    assert h.place(unstamped, DUE + 1003 * MS, fed_at=0) is None  # a mark alone: after the decision
    held, deferred = h.end()
    assert held == DUE and deferred == [(later, DUE + 1002 * MS), (unstamped, DUE + 1003 * MS)]
    assert h.since is None and h.end() == (None, [])


def test_the_hold_waits_for_the_broker_and_its_grace() -> None:
    h = hold()
    start = DUE + 1000 * MS
    h.begin(DUE, start, broker=True)
    assert h.broker_wait(start + 20 * MS) == start + 500 * MS  # the grace is over: wait for the broker
    assert not h.broker_caught_up(DUE - 1, start + 30 * MS)  # an earlier hold's answer, late
    assert h.broker_caught_up(DUE, start + 30 * MS) and h.broker_wait(start + 30 * MS) is None
    h.end()
    h.begin(DUE + 5000 * MS, start + 5000 * MS, broker=True)
    assert not h.broker_caught_up(DUE + 5000 * MS, start + 5010 * MS)  # within its grace: the timer ends it
    h.end()
    h.begin(DUE, start, broker=False)
    assert h.broker_wait(start) is None  # no broker: the grace alone


def test_each_hold_is_said_once() -> None:
    h = hold()
    assert h.said(DUE) and not h.said(DUE) and h.said(DUE + 1)
