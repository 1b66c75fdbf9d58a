"""The ChGK game table: sectors numbered 1..N clockwise, their envelopes, the hidden fortochka.

Contract: `SectorTable` knows which envelope lies on which sector, what kind it is and
whether it has been played; it applies the clockwise rule (003 6.1.1), moves an envelope
(003 6.3.1) and puts new envelopes on freed sectors (000 3.8.1). The fortochka is an
ordinary-looking envelope (000 4.2 д): `public_view` shows it as a question until it has
fallen; only `fortochka()` tells where it lies.
"""

from __future__ import annotations

from dataclasses import dataclass

from console.engine.chgk.events import SectorView
from console.engine.chgk.rules import TITLES, ChgkRules, SectorKind


@dataclass
class Sector:
    number: int
    kind: SectorKind  # the true kind
    envelope: int  # the envelope's number: the sector's own, then N+1, N+2... for refills
    played: bool = False  # played, or a fortochka revealed and passed over


class SectorTable:
    """The sectors of one game. See the module docstring."""

    def __init__(self, rules: ChgkRules) -> None:
        self.size = rules.sectors
        self._sectors = {n: Sector(n, rules.kind_of(n), n) for n in range(1, self.size + 1)}
        self._next_envelope = self.size + 1

    def __getitem__(self, number: int) -> Sector:
        return self._sectors[number]

    def __contains__(self, number: object) -> bool:
        return number in self._sectors

    def resolve(self, picked: int, final_round: bool) -> tuple[int | None, list[int], int | None]:
        """The sector to play for a pick on `picked`: (sector or None, skipped, passed fortochka).

        The picked sector if unplayed, else the next unplayed one clockwise (003 6.1.1). In a
        final round the fortochka is passed over too (000 4.2 д) and returned third.
        """
        skipped: list[int] = []
        passed: int | None = None
        for i in range(self.size):
            s = self._sectors[(picked - 1 + i) % self.size + 1]
            if s.played:
                skipped.append(s.number)
            elif s.kind is SectorKind.FORTOCHKA and final_round:
                skipped.append(s.number)
                passed = s.number
            else:
                return s.number, skipped, passed
        return None, skipped, passed

    def unplayed(self) -> int:
        """How many sectors still hold an envelope (the hidden fortochka included)."""
        return sum(not s.played for s in self._sectors.values())

    def fortochka(self) -> int | None:
        """Where the fortochka lies while it has not fallen (host only)."""
        hidden = [s.number for s in self._sectors.values() if s.kind is SectorKind.FORTOCHKA and not s.played]
        return hidden[0] if hidden else None

    def swap(self, a: int, b: int) -> None:
        """Move the envelope on `a` to `b`; one on `b` goes to `a` (onto a freed `b` it just moves)."""
        sa, sb = self._sectors[a], self._sectors[b]
        sa.kind, sb.kind = sb.kind, sa.kind
        sa.envelope, sb.envelope = sb.envelope, sa.envelope
        sa.played, sb.played = sb.played, sa.played

    def refill(self, number: int) -> int:
        """A new envelope on freed sector `number`: an ordinary question (000 3.8.1). Its number."""
        s = self._sectors[number]
        s.kind, s.envelope, s.played = SectorKind.QUESTION, self._next_envelope, False
        self._next_envelope += 1
        return s.envelope

    def public_view(self) -> tuple[SectorView, ...]:
        return tuple(self.view(s) for s in self._sectors.values())

    @staticmethod
    def view(s: Sector) -> SectorView:
        """One sector as the hall may see it: a fortochka that has not fallen looks like a question."""
        kind = SectorKind.QUESTION if s.kind is SectorKind.FORTOCHKA and not s.played else s.kind
        return SectorView(sector=s.number, kind=kind, title=TITLES[kind], envelope=s.envelope,
                          played=s.played)
