"""The players' lamps: the referee's lamp modes, as one on/blink bit mask per button source.

Contract: `LampMasks(pads)` knows each player's pad (``"mcu:2"``: source ``mcu``, bit 2);
`masks(lamps, sources)` gives every one of `sources` its (on, blink) masks for the referee's
`SetLamps` (a source with no lamp lit gets (0, 0): its lamps go out). A `LampOutput`
(console/sources/host.py) takes those masks: an MCU link, a Buzz! receiver, GPIO lamps.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from console.engine.model import LampMode

__all__ = ["LampMasks"]


class LampMasks:
    """See the module docstring."""

    def __init__(self, pads: Iterable[str]) -> None:
        self._bits = {pad: _bit(pad) for pad in pads}

    def masks(self, lamps: Mapping[str, LampMode], sources: Iterable[str]) -> dict[str, tuple[int, int]]:
        masks = dict.fromkeys(sources, (0, 0))
        for pad, mode in lamps.items():
            # A pad the config did not name (a player added from the tablet) has its bit too.
            source, bit = self._bits.get(pad) or self._bits.setdefault(pad, _bit(pad))
            if source in masks and mode is not LampMode.OFF:
                on, blink = masks[source]
                masks[source] = (on | bit, blink) if mode is LampMode.ON else (on, blink | bit)
        return masks


def _bit(pad: str) -> tuple[str, int]:
    """``"mcu:2"`` -> (``mcu``, bit 2)."""
    source, _, index = pad.partition(":")
    return source, 1 << int(index)
