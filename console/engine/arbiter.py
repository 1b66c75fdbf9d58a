"""Who was first: arbitration on source times, across sources with different delays.

Theory of operation. Every button source declares three facts about itself:

* ``resolution_ns``: two presses closer together than this cannot be told apart by it;
* ``max_delay_ns``: the worst-case time from a press happening to the console receiving it;
* ``ordered``: it delivers its reports in time order, all presses of one scan in one report
  (the MCU link does; GPIO edges from several lines do not promise it).

A decision "the first press was at t0" is final once every source has reported everything
that happened before ``t0 + tie_ns``, the widest photo finish of any two sources; a press is
a tie with the first when it follows it by less than the coarser of their two sources'
resolutions (`tie_between`), or the configured window. A source has
reported through time T when

* it is ordered and its latest report (a press or a heartbeat watermark) is stamped at or
  after ``T - resolution + 1``: its next scan cannot be earlier than that, or
* ``T + max_delay_ns`` has passed on the host clock: anything it still holds is late beyond
  what it declared.

With one ordered MCU the first press settles the moment it arrives, so the lamp lights at
once; with GPIO or mixed sources the console waits at most the declared delay. The same
rule closes windows: a window ending at E closes once every source has reported through E.

A source that was lost (unplugged, gone silent: `lose`) reports through T only by its own
evidence, its watermark, never by the host clock passing T + max_delay: what it stamped
meanwhile may still come when it is back (`restore`), so nothing after its last word is
settled while it is away, nor, for a source that keeps and sends again what it stamped
meanwhile (`resends`: an MCU), once it is back until its watermark has passed the time it
came back (unordered, by its declared delay after it); one that cannot (a Buzz! receiver,
GPIO) has nothing to send, so its return settles what it may, unless
the console gives up waiting for it (`give_up`). Decisions over the span it was away name it
in `lost_between`; for a source that resends, only if its own watermark says it could not
send everything again (``lost_from``: it restarted, or kept too little), or if the console
gave up waiting for it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

# Spans in which a source may have lost inputs, kept for the decisions still to come; a
# question lasts seconds, so only recent ones matter.
_LOST_SPANS_KEPT = 32


@dataclass(frozen=True, slots=True)
class SourceTiming:
    """What a button source promises about its timestamps (see the module docstring)."""

    resolution_ns: int
    max_delay_ns: int
    ordered: bool
    resends: bool = False  # keeps what it stamped while lost and sends it when back (an MCU)

    def __post_init__(self) -> None:
        if self.resolution_ns < 1:
            raise ValueError("resolution_ns must be at least 1")
        if self.max_delay_ns < 0:
            raise ValueError("max_delay_ns must not be negative")


class Arbiter:
    """Tracks what each source has reported and answers "is time T settled yet?"."""

    def __init__(self, sources: Mapping[str, SourceTiming], tie_ns: int | None = None) -> None:
        if not sources:
            raise ValueError("at least one button source is needed")
        self._sources = dict(sources)
        self._tie_set = tie_ns  # game.tie_window_us, when the club set one
        # The widest photo finish of any two presses: how far past a first press to wait.
        self.tie_ns = tie_ns if tie_ns is not None else max(
            s.resolution_ns for s in self._sources.values()
        )
        self._watermark: dict[str, int] = {}
        self._lost: deque[tuple[str, int, int]] = deque(maxlen=_LOST_SPANS_KEPT)
        self._down: dict[str, int] = {}  # lost sources: since when (host ns)
        self._back: dict[str, tuple[int, int]] = {}  # back, not yet caught up: (since, back at)
        self._given_up: dict[str, int] = {}  # lost sources no longer waited for: since when
        self.max_delay_ns = max(s.max_delay_ns for s in self._sources.values())

    def tie_between(self, first: str, other: str) -> int:
        """How close a press of `other` must follow a first press of `first` to be a photo
        finish with it: the configured window, else the coarser of the two sources' own
        resolutions. Two wired buttons are told apart to their own scan, whatever a phone or
        a Buzz! in the same fight can tell (an unknown source counts as the widest)."""
        if self._tie_set is not None:
            return self._tie_set
        widths = [self._sources[s].resolution_ns for s in (first, other) if s in self._sources]
        return max(widths) if len(widths) == 2 else self.tie_ns

    def knows(self, source: str) -> bool:
        return source in self._sources

    def note(self, source: str, up_to: int, lost_from: int | None = None) -> None:
        """Record that `source` has delivered everything stamped at or before `up_to`, except
        what it may have lost after `lost_from` (see `lost_between`)."""
        if source not in self._sources:
            return
        if lost_from is not None:
            self._lost.append((source, lost_from, up_to))
        if up_to > self._watermark.get(source, up_to - 1):
            self._watermark[source] = up_to
        back = self._back.get(source)
        if back is not None and up_to >= back[1]:  # it has said all it held from the span away
            del self._back[source]

    def lose(self, source: str, at: int) -> None:
        """`source` is lost from `at` on (see the module docstring); an unknown one is ignored."""
        if source in self._sources and source not in self._down and source not in self._given_up:
            self._down[source] = at

    def restore(self, source: str, at: int) -> None:
        """`source` is back at `at`: its span away is kept for the decisions over it, unless
        it resends (what it stamped meanwhile is still to come, and its own watermark says
        what it could not send again: `note`'s ``lost_from``)."""
        since = self._down.pop(source, None)
        if since is not None and self._sources[source].resends:
            self._back[source] = (since, at)
            return
        if since is None:
            since = self._given_up.pop(source, None)
        if since is not None:
            self._lost.append((source, since, at))

    def give_up(self, source: str) -> None:
        """Stop waiting for lost `source`: the host clock settles it again, and every decision
        from when it was lost names it, until it is back."""
        since = self._down.pop(source, None)
        if since is not None:
            self._given_up[source] = since
        self._back.pop(source, None)

    def lost_sources(self) -> dict[str, int]:
        """The sources lost (or back and not yet caught up) and still waited for, since when."""
        return {**{s: since for s, (since, _) in self._back.items()}, **self._down}

    def lost_between(self, start: int, end: int) -> tuple[str, ...]:
        """The sources that may have lost inputs made between `start` and `end` (sorted):
        a decision over that span is not guaranteed."""
        away = (*self._down.items(), *self._given_up.items())  # still away: up to `end` at least
        spans = [*self._lost, *((source, since, end) for source, since in away)]
        return tuple(sorted({source for source, lo, hi in spans if lo <= end and hi >= start}))

    def reported_through(self, source: str, t: int, now: int) -> bool:
        timing = self._sources[source]
        down = self._down.get(source)
        back = self._back.get(source)
        if back is not None and not timing.ordered:  # it cannot send again: its delay after it
            return now >= max(t, back[1]) + timing.max_delay_ns
        if now >= t + timing.max_delay_ns and (down is None or t + timing.max_delay_ns <= down) and (
                back is None or t + timing.max_delay_ns <= back[0] or t > back[1]):
            return True  # had its declared delay to deliver it, while it was there
        mark = self._watermark.get(source)
        return timing.ordered and mark is not None and mark >= t - timing.resolution_ns + 1

    def settled(self, t: int, now: int) -> bool:
        """Has every source reported everything that happened before `t`?"""
        for name in self._sources:  # noqa: SIM110 - a loop, not all(generator): the press path
            if not self.reported_through(name, t, now):
                return False
        return True

    def settle_deadline(self, t: int) -> int:
        """The host time by which `t` is settled whatever the sources report."""
        return t + self.max_delay_ns

    def first_settled(self, t0: int, now: int) -> bool:
        """Is a first press at `t0` final, ties included?"""
        return self.settled(t0 + self.tie_ns - 1, now)

    def first_deadline(self, t0: int) -> int:
        return self.settle_deadline(t0 + self.tie_ns - 1)
