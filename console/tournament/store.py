"""The tournament kept on disk: one JSON file, replaced whole and atomically.

Contract: `TournamentStore(folder)`: `load()` gives the saved document (a dict) or None when
there is none yet; a file that is not the store's JSON raises `StoreError` (never silently a
fresh tournament: the draw and the results would be lost). `save(doc)` writes it to a file
beside, fsyncs it, renames it over ``tournament.json`` and fsyncs the folder, so after a power
cut the file is the old document or the new one, never a mix. `export(folder, csv_text, json_doc)`
writes ``standings.csv`` and ``tournament.json`` into `folder` the same way (for the CLI's
``--export``). What the document holds is the service's (console/tournament/book.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["StoreError", "TournamentStore", "write_atomically"]

FILE = "tournament.json"


class StoreError(Exception):
    """The store's file exists but cannot be read as the tournament."""


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".{path.name}.tmp")
    with open(draft, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(draft, path)
    # The rename is durable only once the folder's entry is on disk too.
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


class TournamentStore:
    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder) / FILE

    def load(self) -> dict[str, Any] | None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"cannot read {self.path}: {exc.strerror}") from exc
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise StoreError(f"{self.path} is not JSON ({exc}); the tournament is not started over "
                             "on top of it: move it away to start afresh") from exc
        if not isinstance(doc, dict):
            raise StoreError(f"{self.path} is not a tournament document")
        return doc

    def save(self, doc: dict[str, Any]) -> None:
        write_atomically(self.path, json.dumps(doc, ensure_ascii=False, indent=1) + "\n")

    @staticmethod
    def export(folder: str | Path, csv_text: str, json_doc: dict[str, Any]) -> list[Path]:
        out = Path(folder)
        written = [out / "standings.csv", out / "tournament.json"]
        write_atomically(written[0], csv_text)
        write_atomically(written[1], json.dumps(json_doc, ensure_ascii=False, indent=1) + "\n")
        return written
