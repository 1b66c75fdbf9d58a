"""The fight's protocol while it is played, for the host's tablet: `chgk-console export` on the
live journal and the evening's before it.

Contract: `ProtocolExport(journal_path)` (the journal's file now, "" when none is kept) has
`await get(suffix)` for "html", "csv" or "json": the protocol of what the evening's journals
hold on the disk (this start's and the day's before it, `evening_of`; console/tools/export.py),
or a `ProtocolUnavailable` saying why not in Russian. The export runs in a child process at a
lower priority (`nice`): replaying an evening's journals is seconds of CPU on a Pi, which must
not hold the game's loop or take its core (a press is judged on its stamp, but its lamp and
the boards wait for the loop). One run at a time, and its files are kept until a journal
grows: a tablet asking for the HTML, then the CSV, reads one export.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("chgk.protocol")

EXPORT_TIMEOUT_S = 120.0  # a whole evening's journal on a Pi 4 takes seconds; more is a fault
SUFFIXES = ("html", "csv", "json", "xlsx", "txt")  # the last two: the sports stage's (its .xlsx, masks)


@dataclass(frozen=True, slots=True)
class ProtocolUnavailable:
    why: str  # in Russian: the host reads it


class ProtocolExport:
    """See the module docstring."""

    def __init__(self, journal_path: Callable[[], str]) -> None:
        self._journal_path = journal_path
        self._lock = asyncio.Lock()
        self._cached: tuple[tuple[tuple[str, int], ...], dict[str, bytes]] | None = None

    async def get(self, suffix: str) -> bytes | ProtocolUnavailable:
        """The protocol as `suffix` (one of SUFFIXES), or why there is none (a game whose protocol
        has no such file: the .xlsx and the masks are the sports stage's)."""
        if suffix not in SUFFIXES:
            raise ValueError(f"no protocol as {suffix!r}")
        path = self._journal_path()
        if not path:
            return ProtocolUnavailable("журнал не ведётся ([console] journal в конфиге): протокол "
                                       "строится по журналу")
        async with self._lock:
            journals = evening_of(Path(path))
            try:
                key = tuple((str(j), os.stat(j).st_size) for j in journals)
            except OSError as exc:
                return ProtocolUnavailable(f"журнал не читается ({exc.strerror})")
            if self._cached is None or self._cached[0] != key:
                files = await self._export(journals)
                if isinstance(files, ProtocolUnavailable):
                    return files
                self._cached = (key, files)
            if suffix not in self._cached[1]:
                return ProtocolUnavailable(f"у протокола этой игры нет файла .{suffix}")
            return self._cached[1][suffix]

    async def _export(self, journals: list[Path]) -> dict[str, bytes] | ProtocolUnavailable:
        journal = journals[-1]
        with tempfile.TemporaryDirectory(prefix="chgk-protocol-") as out:
            child = await asyncio.create_subprocess_exec(
                "nice", "-n", "10", sys.executable, "-m", "console.cli", "export", *map(str, journals),
                "--out", out, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            try:
                async with asyncio.timeout(EXPORT_TIMEOUT_S):
                    written, errors = await child.communicate()
            except TimeoutError:
                child.kill()
                await child.wait()
                log.error("protocol: the export of %s took over %.0f s; stopped", journal, EXPORT_TIMEOUT_S)
                return ProtocolUnavailable("протокол не успел построиться; попробуйте ещё раз")
            if child.returncode != 0:
                why = errors.decode(errors="replace").strip()
                log.error("protocol: the export of %s failed: %s", journal, why)
                return ProtocolUnavailable(f"протокол не построен: {why}")
            # The export prints each file it wrote: one per suffix.
            paths = {path.suffix.lstrip("."): path for path in map(Path, written.decode().splitlines())}
            return {suffix: path.read_bytes() for suffix, path in paths.items() if suffix in SUFFIXES}


# A dated journal of the console (console/shell/journal_files.py): <base>-YYYYMMDD-HHMMSS[-N].jsonl
_DATED = re.compile(r"^(?P<day>.+-\d{8})-(?P<time>\d{6})(?:-(?P<n>\d+))?\.jsonl$")


def evening_of(journal: Path) -> list[Path]:
    """The evening's journals up to `journal` (this start's): the dated journals of its day
    beside it, in the order they were begun, then it."""
    match = _DATED.match(journal.name)
    if match is None:  # not dated yet (its beginning is still being committed): itself only
        return [journal]

    def begun(path: Path) -> tuple[str, int]:
        m = _DATED.match(path.name)
        assert m is not None
        return m["time"], int(m["n"] or 1)  # -2, -3: a Pi's clock at the same saved time

    day = [p for p in journal.parent.glob(f"{match['day']}-*.jsonl") if _DATED.match(p.name)]
    return [*sorted((p for p in day if begun(p) < begun(journal)), key=begun), journal]
