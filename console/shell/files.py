"""Names for the files the console keeps (journals, game records) that never overwrite one.

Their names carry the wall-clock time of the start, which is not unique: a Pi without a
real-time clock or network boots to the same saved time again and again, so two starts may
name their files alike. Each file is created exclusively instead; a taken name gets -2, -3…
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO


def create_new(path: Path) -> tuple[Path, TextIO]:
    """Create and open (UTF-8, for writing) the first of `path`, `stem-2.ext`, `stem-3.ext`…
    that does not exist yet; raises OSError as open() does."""
    candidate, n = path, 1
    while True:
        try:
            return candidate, open(candidate, "x", encoding="utf-8")
        except FileExistsError:
            n += 1
            candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
