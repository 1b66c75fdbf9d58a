"""The packs the host may choose on the tablet: the folder's list, and a pack read to be played.

Contract: `PackShelf(folder, read_list, read_choice, on_list, on_choice, on_problem)` carries
out the host's commands `{"action": "list_packs"}` (the folder's packs are listed again) and
`{"action": "choose_pack", "file": NAME, "round": N}` (the pack `NAME` of the folder is read and
its input, playing it from round N, handed to `on_choice` for the game). `command` checks the
arguments at once and raises ValueError naming what is wrong; the reading itself runs in a
worker thread (`read_list` and `read_choice` read files: a pack of a few hundred KB of XML is
tens of ms on a Pi, which must not hold the loop that lights the lamps), and a pack that cannot
be read is reported through `on_problem` in Russian, changing nothing. `on_list` gets the list
(`console.games.svoya.packs.catalogue`) for the retained status, at `refresh` and after each
`list_packs`. One reading at a time: a command while one runs is refused.

A name is looked up among the folder's files, never opened as a path: the tablet names a file
of the list, nothing outside the folder.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from console.games.kind import only_keys
from console.packs import PackError
from console.shell.timers import Timers

__all__ = ["CHOOSE_PACK", "LIST_PACKS", "PackShelf"]

log = logging.getLogger("chgk.packs")
T = TypeVar("T")

LIST_PACKS, CHOOSE_PACK = "list_packs", "choose_pack"


class PackShelf:
    """See the module docstring."""

    def __init__(self, folder: Path, *, read_list: Callable[[Path], dict[str, Any]],
                 read_choice: Callable[[Path, int], object], on_list: Callable[[dict[str, Any]], None],
                 on_choice: Callable[[object], None], on_problem: Callable[[str], None]) -> None:
        self.folder = folder
        self._read_list, self._read_choice = read_list, read_choice
        self._on_list, self._on_choice, self._on_problem = on_list, on_choice, on_problem
        self._busy = False
        self._timers = Timers()  # reads run in a worker thread, off the loop

    def command(self, command: Mapping[str, Any]) -> None:
        """Carry out list_packs or choose_pack (see the module docstring)."""
        if self._busy:
            raise ValueError("a pack is being read: wait for it")
        if command.get("action") == LIST_PACKS:
            only_keys(command, ("action",))
            self.refresh()
            return
        only_keys(command, ("action", "file", "round"))
        name, number = command.get("file"), command.get("round", 1)
        if not isinstance(name, str) or not name:
            raise ValueError("choose_pack needs the pack's file name (file), as the list names it")
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise ValueError(f"choose_pack: round must be a whole number from 1, got {number!r}")
        path = self._find(name)
        if path is None:
            raise ValueError(f"there is no pack {name!r} in the folder «{self.folder.name}»")
        self._run(lambda: self._read(path, number), lambda chosen: self._chosen(chosen, path.name, number))

    def refresh(self) -> None:
        """List the folder's packs again (off the loop when one runs)."""
        self._run(lambda: self._read_list(self.folder), self._on_list)

    def _find(self, name: str) -> Path | None:
        """The folder's file `name`; never one a link takes out of the folder."""
        try:
            folder = self.folder.resolve()
            return next((p for p in self.folder.iterdir() if p.name == name and p.is_file()
                         and p.resolve().is_relative_to(folder)), None)
        except OSError:
            return None

    def _read(self, path: Path, number: int) -> object:
        try:
            return self._read_choice(path, number)
        except PackError as exc:
            return PackError(path.name, exc.problem)

    def _chosen(self, chosen: object, name: str, number: int) -> None:
        if isinstance(chosen, PackError):
            self._on_problem(f"пакет {chosen.source} не загружен: {chosen.problem}")
            return
        log.info("pack chosen: %s, round %d", name, number)  # (not the pack: its answers are in it)
        self._on_choice(chosen)

    def _run(self, read: Callable[[], T], deliver: Callable[[T], None]) -> None:
        """`read` in a worker thread, then `deliver` of its result in the loop; at once when
        no loop runs (driven by hand: tests, tools)."""
        self._busy = True
        if not self._timers.start(lambda: self._in_thread(read, deliver)):
            self._busy = False
            deliver(read())

    async def _in_thread(self, read: Callable[[], T], deliver: Callable[[T], None]) -> None:
        try:
            result = await asyncio.to_thread(read)
        except Exception:  # a reader's bug: said, and the game goes on as it was
            log.exception("packs: reading failed")
            self._on_problem("пакет не прочитан: ошибка консоли (подробности в логе)")
            return
        finally:
            self._busy = False
        deliver(result)  # in the loop: it touches the console
