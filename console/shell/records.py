"""Each table game's record on disk, for the tournament's tables (000 1.6.1, 1.7).

Contract: `GameRecords(folder, report_error)`: `game_started()` counts the games of this
start; `keep(record)` writes the current game's record (the JSON published on ``/record``) to
``<folder>/game-<start time>-<n>.json``, replacing that game's earlier version whole (a record
re-sent after late hall answers replaces its own file), never another start's file. A folder
that cannot be written is reported; the game goes on. No folder: nothing is kept.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from console.shell.files import create_new

__all__ = ["GameRecords"]


class GameRecords:
    """See the module docstring."""

    def __init__(self, folder: str, report_error: Callable[[str, str], None]) -> None:
        self._folder = folder
        self._report_error = report_error
        self._games = 0
        self.started_wall = time.strftime("%Y%m%d-%H%M%S")
        self._files: dict[int, Path] = {}  # game number -> its record's file

    def game_started(self) -> None:
        self._games += 1

    def keep(self, record: dict[str, Any]) -> None:
        if not self._folder:
            return
        game = self._games + 1
        try:
            Path(self._folder).mkdir(parents=True, exist_ok=True)
            path = self._files.get(game)
            if path is None:
                path, reserved = create_new(Path(self._folder, f"game-{self.started_wall}-{game}.json"))
                reserved.close()
                self._files[game] = path
            draft = path.with_name(path.name + ".tmp")
            draft.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
            os.replace(draft, path)
        except OSError as exc:
            self._report_error("record", f"cannot keep the game record in {self._folder}: {exc.strerror}")
