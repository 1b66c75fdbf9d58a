"""Question packs for «Своя игра»: SIGame packages (.siq) and the console's TOML packs.

Contract: `load_pack(path)` reads a pack by its kind (a zip archive: SIGame; otherwise the
TOML format of docs/packs.md) into a frozen `Pack`, or raises one `PackError` whose message
names the file and the problem, whatever went wrong (missing file, not a zip, a zip bomb, bad
XML or TOML, missing fields). A pack is read once, at start; its media files are never
extracted.
"""

from __future__ import annotations

from pathlib import Path

from console.packs.model import Pack, PackError, PackQuestion, Round, Theme
from console.packs.siq import read_siq
from console.packs.toml_pack import read_toml_pack

__all__ = ["Pack", "PackError", "PackQuestion", "Round", "Theme", "load_pack"]

ZIP_MAGIC = b"PK"


def load_pack(path: str | Path) -> Pack:
    """The pack in `path` (see the module docstring)."""
    source = str(path)
    try:
        with open(path, "rb") as f:
            magic = f.read(2)
    except FileNotFoundError:
        raise PackError(source, "file not found") from None
    except IsADirectoryError:
        raise PackError(source, "is a directory, not a pack") from None
    except OSError as exc:
        raise PackError(source, f"cannot read it ({exc.strerror or exc})") from None
    if magic == ZIP_MAGIC or source.lower().endswith(".siq"):
        return read_siq(path)
    return read_toml_pack(path)
