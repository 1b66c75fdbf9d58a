"""What resuming from the journal found: the records `console/shell/resume.py` gives.

Contract: a `Resumption` is a journal replayed and ready to go on (the runtime's `Console`
is built with it); a `NotResumed` a journal of today that could not be resumed, kept under
another name. They live apart from resume.py so that the runtime, which resume announces
itself on, needs no import of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from console.engine.game import Game

__all__ = ["NotResumed", "Resumption"]


@dataclass(frozen=True)
class Resumption:
    """A journal replayed, ready to go on (console/shell/resume.py)."""

    path: Path
    seed: int
    referee: Game[Any]  # the replayed engine, TimeShifted when shift_ns > 0
    engine: Game[Any]  # the same engine, unwrapped (what `interrupted` looks at)
    known_until: int  # the journal's last time (engine ns): the console ran at least this long
    shift_ns: int
    inputs: int
    torn: str | None  # the torn last line as read (None: the journal ended cleanly)
    skipped: tuple[str, ...]  # replay's words on each line it refused
    keep_bytes: int  # how much of the file this start keeps before it appends (a torn line cut)
    needs_newline: bool  # its last line is whole but lacks its newline
    own_settings: bool  # resumed with its own settings before (`run --resume`): a restart keeps that
    # What the engine holds that the journal's lines hold whole (key -> object): later
    # checkpoints refer to it again (console/shell/checkpoint.py).
    references: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class NotResumed:
    """A journal of today that was not resumed. One of another config (`differs`: the
    sections) is left as it is, for the host to choose (resume it with its own settings, or
    start afresh); one that cannot be resumed at all is kept under another name (`kept_as`)."""

    path: Path
    kept_as: Path | None
    why: str
    differs: tuple[str, ...] = ()

    @property
    def offered(self) -> bool:
        """Whether the host is offered to resume it (with the journal's own settings)."""
        return bool(self.differs) and self.kept_as is None
