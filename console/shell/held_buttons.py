"""Buttons held down: said once when one has been down too long, and once when it comes up.

Contract: `HeldButtons(hold_ns, players)` is told which pads go down and up (`down`, `up`:
the sources' edges, before any coalescing) and, from an MCU's HEARTBEAT, which pads of a
source are down right now (`seen_down`: it corrects a view that a lost frame, or a pad already
down when the box connected, left wrong).  `due(now)` returns a `ButtonHeld` ("held") for each
pad down for at least `hold_ns` that was not reported yet; `up` and `seen_down` return the
"released" one of a pad that was reported.  `next_deadline()` says when `due` next has
something.  Pure: no I/O, no clock reads (tests step time by hand); the referee is not
involved: a held pad's press counts once, as any press, and the other pads play on.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from console.notices import ButtonHeld

__all__ = ["HeldButtons"]

_NS_PER_MS = 1_000_000


@dataclass(slots=True)
class _Down:
    source: str
    since_ns: int
    reported: bool = False


class HeldButtons:
    """Which pads are down and since when (see the module docstring)."""

    def __init__(self, hold_ns: int, players: Mapping[str, str]) -> None:
        if hold_ns <= 0:
            raise ValueError(f"hold_ns must be positive, got {hold_ns}")
        self.hold_ns = hold_ns
        self._players = dict(players)  # pad name -> player id
        self._down: dict[str, _Down] = {}  # pad name -> since when it is down

    def set_players(self, players: Mapping[str, str]) -> None:
        """Whose each pad is now (the players changed on the tablet): later notices name them."""
        self._players = dict(players)

    def down(self, source: str, pad: str, at_ns: int) -> None:
        """`pad` went down at `at_ns` (a press edge); a pad already down keeps its first time."""
        if pad not in self._down:
            self._down[pad] = _Down(source, at_ns)

    def up(self, pad: str, at_ns: int, now: int) -> ButtonHeld | None:
        """`pad` came up at `at_ns`: its "released" notice if it had been reported held."""
        was = self._down.pop(pad, None)
        if was is None or not was.reported:
            return None
        return self._notice(pad, was, "released", at_ns, now)

    def seen_down(self, source: str, pads: Collection[str], at_ns: int, now: int) -> list[ButtonHeld]:
        """A HEARTBEAT of `source` says exactly `pads` are down at `at_ns`: those not known to
        be down count from then, those known down that are not come up then."""
        released: list[ButtonHeld] = []
        for pad in [p for p, d in self._down.items() if d.source == source and p not in pads]:
            notice = self.up(pad, at_ns, now)
            if notice is not None:
                released.append(notice)
        for pad in pads:
            self.down(source, pad, at_ns)
        return released

    def forget(self, source: str) -> None:
        """`source` is gone (disconnected): what its pads do is unknown until it is back, so
        none of them is reported held meanwhile; one already reported stays, so that its
        release is said when the source's next HEARTBEAT shows it up."""
        for pad in [p for p, d in self._down.items() if d.source == source and not d.reported]:
            del self._down[pad]

    def due(self, now: int) -> list[ButtonHeld]:
        """The "held" notice of each pad down for `hold_ns` by `now` and not reported yet."""
        notices: list[ButtonHeld] = []
        for pad, d in self._down.items():
            if not d.reported and now - d.since_ns >= self.hold_ns:
                d.reported = True
                notices.append(self._notice(pad, d, "held", now, now))
        return notices

    def next_deadline(self) -> int | None:
        """When the next pad not yet reported will have been down for `hold_ns`, or None."""
        waiting = [d.since_ns for d in self._down.values() if not d.reported]
        return min(waiting) + self.hold_ns if waiting else None

    def _notice(self, pad: str, d: _Down, state: str, at_ns: int, now: int) -> ButtonHeld:
        return ButtonHeld(t_ns=now, source=d.source, pad=pad, player=self._players.get(pad),
                          state=state, held_ms=max(0, at_ns - d.since_ns) // _NS_PER_MS)
