"""«Проверка кнопок»: before a fight, every button is tried at the table.

Contract: `ButtonCheck(owners)` (pad -> the name of whose button it is, in seating order)
records each pad's first press (`press`: True the first time a pad is pressed); `lamps()` is
every pressed pad lit; `view()` is what the retained status carries (`button_check`: whether
the check runs, and each button with its owner and whether it answered); `silent()` names the
buttons that never answered. The console runs one between questions (console/shell/runtime.py):
the presses go to the check, not to the game, so none of them is a false start.
"""

from __future__ import annotations

from collections.abc import Mapping

from console.engine.model import Json, LampMode

__all__ = ["ButtonCheck"]


class ButtonCheck:
    """One check of the table's buttons (see the module docstring)."""

    def __init__(self, owners: Mapping[str, str]) -> None:
        self._owners = dict(owners)
        self._pressed: dict[str, int] = {}  # pad -> when first pressed (source ns)
        self.active = True

    def press(self, pad: str, at: int) -> bool:
        """`pad` was pressed at `at`: True the first time (a pad no one owns is ignored)."""
        if pad not in self._owners or pad in self._pressed:
            return False
        self._pressed[pad] = at
        return True

    def lamps(self) -> dict[str, LampMode]:
        return {pad: LampMode.ON if pad in self._pressed else LampMode.OFF for pad in self._owners}

    def silent(self) -> list[str]:
        """The buttons never pressed, as "<owner> (<pad>)"."""
        return [f"{name} ({pad})" for pad, name in self._owners.items() if pad not in self._pressed]

    def view(self) -> dict[str, Json]:
        return {"active": self.active,
                "buttons": [{"pad": pad, "name": name, "pressed": pad in self._pressed}
                            for pad, name in self._owners.items()]}
