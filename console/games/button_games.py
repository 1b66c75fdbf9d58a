"""What the button games («Своя игра», «Эрудит-квартет», «Брейн-ринг») share in their registry
entries: the host's score corrections as commands and scenario lines, and the button sources'
timings. Each game's kind composes these; no game imports another's kind for them.

Contract: `parse_correction(command, at)` gives the correction a host command names
(``adjust_score``, ``reverse``, ``undo``; ValueError naming a bad argument's type, the referee
judges the values), or None for any other action; `correction_line(inp)` its scenario line
(``host`` with its arguments), None for any other input; `source_timings(config)` what each
configured source promises about its stamps (console/engine/arbiter.py).
"""

from __future__ import annotations

from typing import Any

from console.config import Config
from console.engine.arbiter import SourceTiming
from console.engine.corrections import UNDO, AdjustScore, CorrectionAction, Reverse, Undo
from console.engine.model import NS_PER_MS
from console.games.kind import GameInput, JsonObject, only_keys
from console.sources import source_kind

__all__ = ["CORRECTIONS", "CORRECTION_ARGS", "correction_line", "parse_correction", "source_timings", "text"]

# The keys a correction's host command (and its scenario line) carries beside the action.
CORRECTION_ARGS: dict[str, tuple[str, ...]] = {CorrectionAction.ADJUST_SCORE: ("player", "delta", "reason"),
                                               CorrectionAction.REVERSE: ("reason",), UNDO: ("reason",)}
CORRECTIONS = frozenset(CORRECTION_ARGS)


def parse_correction(command: JsonObject, at: int) -> AdjustScore | Reverse | Undo | None:
    """The correction `command` names, or None (see the module docstring)."""
    action = command.get("action")
    if action == CorrectionAction.ADJUST_SCORE:
        only_keys(command, ("action", *CORRECTION_ARGS[CorrectionAction.ADJUST_SCORE]))
        delta = command.get("delta")
        if isinstance(delta, bool) or not isinstance(delta, int):
            raise ValueError(f"adjust_score: delta must be a whole number, got {delta!r}")
        return AdjustScore(player=text(command, "player"), delta=delta, reason=text(command, "reason"), at=at)
    if action == CorrectionAction.REVERSE:
        only_keys(command, ("action", *CORRECTION_ARGS[CorrectionAction.REVERSE]))
        return Reverse(reason=text(command, "reason"), at=at)
    if action == UNDO:
        only_keys(command, ("action", *CORRECTION_ARGS[UNDO]))
        return Undo(reason=text(command, "reason"), at=at)
    return None


def text(command: JsonObject, key: str) -> str:
    """The command's argument `key`, which must be a string (ValueError naming it)."""
    value = command.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{command.get('action')}: {key} must be a string, got {value!r}")
    return value


def correction_line(inp: GameInput) -> tuple[dict[str, Any], int] | None:
    """A correction's scenario line and its time; None for any other input."""
    if isinstance(inp, AdjustScore | Reverse | Undo):
        command = inp.command()
        return {"host": command.pop("action"), **command}, inp.at
    return None


def source_timings(config: Config) -> dict[str, SourceTiming]:
    """What each configured button source promises about its stamps (`SourceTiming`)."""
    return {
        name: SourceTiming(
            resolution_ns=s.resolution_us * 1000,
            max_delay_ns=int(s.max_delay_ms * NS_PER_MS),
            ordered=source_kind(s.kind).ordered,
            resends=source_kind(s.kind).resends,
        )
        for name, s in config.sources.items()
    }
