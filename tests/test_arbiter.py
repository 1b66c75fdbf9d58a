"""The arbiter's boundaries, one nanosecond either side (console/engine/arbiter.py): when a
source has reported through a time, when the first press is final, when a window closes.
Each is what 004 App.4-5 rests on: a press made in time always counts, so nothing may be
decided while an in-time press can still arrive, and nothing waits longer than the sources'
declared delay."""

from __future__ import annotations

from console.engine.arbiter import Arbiter, SourceTiming

MS = 1_000_000
RESOLUTION = 1 * MS  # the box scans its pads every millisecond
MAX_DELAY = 5 * MS


def box(tie_ns: int | None = None) -> Arbiter:
    return Arbiter({"mcu": SourceTiming(RESOLUTION, MAX_DELAY, ordered=True)}, tie_ns=tie_ns)


def test_a_watermark_one_resolution_short_does_not_close_a_window_ending_at_e() -> None:
    """The box's next scan after a watermark at E - resolution may be stamped E: a press made
    at the window's very end (in time) can still come, so the window must not close yet."""
    end = 7_000 * MS
    arbiter = box()
    arbiter.note("mcu", end - RESOLUTION)
    assert not arbiter.settled(end, now=end + 1)
    arbiter.note("mcu", end - RESOLUTION + 1)
    assert arbiter.settled(end, now=end + 1)  # its next scan is after E: the window closes


def test_the_host_clock_settles_a_silent_source_exactly_at_its_declared_delay() -> None:
    end = 7_000 * MS
    arbiter = box()
    assert not arbiter.settled(end, now=end + MAX_DELAY - 1)
    assert arbiter.settled(end, now=end + MAX_DELAY)
    assert arbiter.settle_deadline(end) == end + MAX_DELAY


def test_a_tie_across_scans_is_decided_no_earlier_than_the_watermark_that_settles_it() -> None:
    """A tie window of 5 ms over 1-ms scans: presses up to t0 + 5 ms - 1 are a tie with the
    first (004 App.5 with the configured tie window), so the first press is final only once
    the box has reported through that: its watermark at t0 + 4 ms, not a scan before."""
    t0 = 10_000 * MS
    tie = 5 * MS
    arbiter = box(tie_ns=tie)
    for scan in range(4):  # the scans at t0 .. t0 + 3 ms: another press may still tie
        arbiter.note("mcu", t0 + scan * RESOLUTION)
        assert not arbiter.first_settled(t0, now=t0 + scan * RESOLUTION + 1), scan
    arbiter.note("mcu", t0 + 4 * RESOLUTION)
    assert arbiter.first_settled(t0, now=t0 + 4 * RESOLUTION + 1)
    assert arbiter.first_deadline(t0) == t0 + tie - 1 + MAX_DELAY  # the host clock's bound


def test_with_the_default_tie_window_one_scan_settles_the_first_press() -> None:
    """One ordered box, the tie window its own resolution: the first press is final the moment
    its scan arrives (the lamp lights at once), and not by a scan before it."""
    t0 = 10_000 * MS
    arbiter = box()
    assert arbiter.tie_ns == RESOLUTION
    arbiter.note("mcu", t0 - 1)
    assert not arbiter.first_settled(t0, now=t0)
    arbiter.note("mcu", t0)
    assert arbiter.first_settled(t0, now=t0)


def test_a_tie_window_spanning_two_sources_waits_for_the_coarser_one() -> None:
    """A fine GPIO-like ordered source and a coarse box: the tie window is the coarser
    resolution, and the fine source's press is final only once both reported through it."""
    t0 = 10_000 * MS
    arbiter = Arbiter({"fine": SourceTiming(1_000, MAX_DELAY, ordered=True),
                       "coarse": SourceTiming(10 * MS, MAX_DELAY, ordered=True)})
    assert arbiter.tie_ns == 10 * MS
    arbiter.note("fine", t0 + 10 * MS - 1_000)  # the fine source through t0 + 10 ms - 1
    assert not arbiter.first_settled(t0, now=t0 + 1)  # the coarse one has said nothing
    arbiter.note("coarse", t0 - 1)
    assert not arbiter.first_settled(t0, now=t0 + 1)  # its next scan may still be a tie
    arbiter.note("coarse", t0)
    assert arbiter.first_settled(t0, now=t0 + 1)


def test_a_photo_finish_is_as_wide_as_the_coarser_of_its_two_sources() -> None:
    """004 App.5 across kinds: a phone (20 ms) beside a box (1 µs) widens only the photo
    finishes it takes part in; a configured tie window is the same for all."""
    sources = {"box": SourceTiming(1_000, MAX_DELAY, ordered=True),
               "phones": SourceTiming(20 * MS, 1_500 * MS, ordered=True)}
    arbiter = Arbiter(sources)
    assert arbiter.tie_between("box", "box") == 1_000
    assert arbiter.tie_between("box", "phones") == arbiter.tie_between("phones", "box") == 20 * MS
    assert arbiter.tie_ns == 20 * MS  # a first press waits for the widest before it is final
    assert Arbiter(sources, tie_ns=2 * MS).tie_between("box", "box") == 2 * MS
