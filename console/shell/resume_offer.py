"""A journal of today kept under another config, offered to the host: resume it, or start afresh.

A restart with another config (a player renamed, a forgotten ``--pack``, other rules) used to
rename today's journal and start a fresh game, so the fight's scores were gone. Now nothing
is renamed or lost until the host chooses (console/shell/resume.py leaves such a journal as
it is): the console starts a fresh game, the host is told what differs (`ResumeOffer`
notices, the retained status's ``resume_offer``), and this start's journal is not made the
one to resume yet, so a restart meanwhile asks again.

Contract: `ResumeOffer(path, differs, journal, say, clock, on_resume)`; `choose(action)` takes the
host's ``resume_journal`` (`on_resume(path)`: the daemon starts again with the journal's own
settings, `chgk-console run --resume FILE`) or ``start_fresh`` (this start's journal is
committed and the offered one set aside as ``*.not-resumed.jsonl``, never deleted); a game
input (the host plays on) is taken as ``start_fresh``, said so. `view()` is what the retained
status carries while the offer stands.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from console.notices import ResumeOffered
from console.shell.journal import Journal
from console.shell.journal_files import set_aside

__all__ = ["NOT_RESUMED", "RESUME_JOURNAL", "SHELL_ACTIONS", "START_FRESH", "ResumeOffer"]

log = logging.getLogger("chgk.resume")

RESUME_JOURNAL = "resume_journal"
START_FRESH = "start_fresh"
SHELL_ACTIONS = (RESUME_JOURNAL, START_FRESH)  # the console's own host commands, not a game's
NOT_RESUMED = ".not-resumed"  # a journal of another config, kept


class ResumeOffer:
    """See the module docstring."""

    def __init__(self, path: Path, differs: tuple[str, ...], journal: Journal,
                 say: Callable[[ResumeOffered], None], clock: Callable[[], int],
                 on_resume: Callable[[Path], None] | None) -> None:
        self.path = path
        self.differs = differs
        self._journal = journal
        self._say = say
        self._clock = clock
        self._on_resume = on_resume
        self.open = True
        say(ResumeOffered(t_ns=clock(), state="offered", journal=path.name, differs=differs, implicit=False))

    def view(self) -> dict[str, object]:
        return {"journal": self.path.name, "differs": list(self.differs)}

    def choose(self, action: str, *, implicit: bool = False) -> None:
        """The host's choice (SHELL_ACTIONS); `implicit`: the host played on instead."""
        self.open = False
        if action == RESUME_JOURNAL and self._on_resume is not None:
            log.info("journal: the host resumes %s with its own settings", self.path)
            self._say(ResumeOffered(t_ns=self._clock(), state="accepted", journal=self.path.name,
                                    differs=self.differs, implicit=False))
            self._on_resume(self.path)
            return
        kept = set_aside(self.path, NOT_RESUMED)
        self._journal.commit()  # this start's fight is the one to resume from now on
        log.info("journal: a fresh game (%s); %s kept as %s", "played on" if implicit else "chosen",
                 self.path, kept or self.path)
        self._say(ResumeOffered(t_ns=self._clock(), state="declined", journal=(kept or self.path).name,
                                differs=self.differs, implicit=implicit))
