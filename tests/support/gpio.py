"""gpiozero mock pins wired as on a real table: `HeldPin`, a pin its wiring holds low (a button
held down or shorted) until the test lets it go."""

from __future__ import annotations

from gpiozero.pins.mock import MockPin

__all__ = ["HeldPin"]


class HeldPin(MockPin):  # type: ignore[misc]
    """A mock pin held low by its wiring until ``held`` is cleared: the pull-up (which drives
    the mock pin high through its public ``drive_high``) does not move it."""

    held = True

    def drive_high(self) -> None:
        if not self.held:
            super().drive_high()
