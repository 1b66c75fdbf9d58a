"""ReportLimit: a few reports a second one by one, the rest as one count (time stepped by hand)."""

from __future__ import annotations

from drivers.report_limit import NS_PER_S, ReportLimit


def test_a_burst_shows_the_first_few_and_counts_the_rest() -> None:
    limit = ReportLimit(per_second=3)
    shown = [limit.admit(1_000 + i) for i in range(10)]
    assert shown == [True] * 3 + [False] * 7
    assert limit.held == 7 and limit.count_due_ns() == 1_000 + NS_PER_S


def test_the_count_is_taken_once_its_second_is_over_or_early() -> None:
    limit = ReportLimit(per_second=1)
    limit.admit(0)
    limit.admit(10)
    limit.admit(20)
    assert limit.take_held(NS_PER_S - 1) == 0  # not yet
    assert limit.take_held(NS_PER_S) == 2
    assert limit.held == 0 and limit.count_due_ns() is None
    # The count's report was the first of a new second: the next one waits.
    assert not limit.admit(NS_PER_S + 5)
    assert limit.take_held(NS_PER_S + 6, early=True) == 1  # the source is going away


def test_a_quiet_source_is_always_shown() -> None:
    limit = ReportLimit(per_second=2)
    assert all(limit.admit(t * NS_PER_S) for t in range(20))  # one a second
    assert limit.held == 0
