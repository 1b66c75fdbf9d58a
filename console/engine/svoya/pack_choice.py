"""The pack a fight plays, chosen on the host's tablet: a pack file and the round to begin at.

Contract: `ChoosePack` is a host input like `console.engine.model.Host`, stamped `at`. It holds
the pack as the referee plays it: `themes`, every played theme of the pack in order, and
`start`, the index of the chosen round's first theme among them. It also says where the pack
came from: `file`, `name`, `round` (1-based among the pack's played rounds), `round_name`, and
the cells left out of it (`skipped`, console.packs), which the console reports. The
journal writes it whole (console/games/svoya/packs.py), so a replay or a resume needs no pack
file. The referee takes
it between questions: a new fight begins at `start` with the scores at zero; «Новая игра»
then begins this pack again and `next_fight` goes on in it.
"""

from __future__ import annotations

from dataclasses import dataclass

from console.engine.svoya.rules import PackTheme

__all__ = ["CHOOSE_PACK", "ChoosePack"]

CHOOSE_PACK = "choose_pack"


@dataclass(frozen=True, slots=True)
class ChoosePack:
    at: int
    file: str  # the pack's file as the console read it (its media are looked up in it)
    name: str  # the pack's own name ("" when it has none)
    round: int
    round_name: str
    start: int
    themes: tuple[PackTheme, ...]
    skipped: tuple[str, ...] = ()  # the pack's cells these rules cannot play, each with why

    def __post_init__(self) -> None:
        if not 0 <= self.start < len(self.themes):
            raise ValueError(f"{CHOOSE_PACK}: start {self.start} is not one of the pack's "
                             f"{len(self.themes)} themes")
        if self.round < 1:
            raise ValueError(f"{CHOOSE_PACK}: round must be 1 or more, got {self.round}")
