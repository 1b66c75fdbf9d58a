"""A question's picture, sound or video shown to the hall on the host's command.

Contract: `HallMedia(pack_path)` knows the media files of the pack the game plays now
(`pack_path()`: "" for none; a pack chosen on the tablet changes it) (a SIGame
package's `Images/`, `Audio/` and `Video/`; beside a TOML pack, the files of its folder) and
`find(name)` gives one (`Media`: its kind, content type and bytes) or None. The host's commands
`{"action": "show_media", "name": FILE}` and `{"action": "hide_media"}` (`command`) say what
the hall's boards show; what is shown is `shown` (`{"name", "kind"}` or None), which the
console keeps in its retained status (`hall_media`), so a board opened later shows it too. The
display server serves the file at `/media/<name>` (console/shell/display_server.py).

A name is looked up, never opened as a path: in the package by its entry (SIGame writes them
URL-escaped, so both spellings are tried), beside a TOML pack only inside its folder. A file
over MAX_MEDIA_BYTES is not served (a board on the hall's Wi-Fi would take minutes for it).
"""

from __future__ import annotations

import contextlib
import functools
import mimetypes
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol
from urllib.parse import quote

from console.games.kind import only_keys

__all__ = ["HIDE_MEDIA", "MAX_MEDIA_BYTES", "SHOW_MEDIA", "HallMedia", "Media"]

SHOW_MEDIA, HIDE_MEDIA = "show_media", "hide_media"
MAX_MEDIA_BYTES = 64 * 1024 * 1024  # a minute of a pack's video; more is not a question's media
FOLDERS = {"Images": "image", "Audio": "audio", "Video": "video"}  # SIGame's package layout
KINDS = ("image", "audio", "video")


class Chunks(Protocol):
    """A media file being served: read in chunks, then closed."""

    def read(self, size: int = -1, /) -> bytes: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Media:
    kind: str  # image, audio or video
    content_type: str
    size: int
    open: Callable[[], Chunks]  # the file's bytes, to be read in chunks and closed

    @property
    def data(self) -> bytes:
        """The whole file (tests; the display server streams it)."""
        with contextlib.closing(self.open()) as file:
            return file.read()


class HallMedia:
    """See the module docstring."""

    def __init__(self, pack_path: Callable[[], str],
                 on_change: Callable[[dict[str, str] | None], None]) -> None:
        self._pack_path = pack_path
        self.on_change = on_change  # the console publishes what the hall is shown
        self.shown: dict[str, str] | None = None

    def command(self, command: Mapping[str, Any]) -> None:
        """Carry out a host's show_media or hide_media; ValueError says what was wrong."""
        if command.get("action") == HIDE_MEDIA:
            only_keys(command, ("action",))
            self._show(None)
            return
        if not self._pack_path():
            raise ValueError("no pack is played: there is no media to show")
        only_keys(command, ("action", "name"))
        name = command.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError("show_media needs the file's name (name)")
        media = self.find(name)
        if media is None:
            raise ValueError(f"the pack has no picture, sound or video {name!r} to show")
        self._show({"name": name, "kind": media.kind})

    @property
    def pack(self) -> Path:
        """The pack the game plays now (a pack chosen on the tablet changes it)."""
        return Path(self._pack_path())

    def hide(self) -> None:
        """Nothing shown to the hall any more (when something was)."""
        if self.shown is not None:
            self._show(None)

    def shown_media(self, name: str) -> Media | None:
        """`name`'s file, only while it is the one the hall is shown (the display server's)."""
        if self.shown is None or self.shown.get("name") != name:
            return None
        return self.find(name)

    def find(self, name: str) -> Media | None:
        """The media file `name` of the pack, or None (not there, not media, too big; no pack)."""
        if not self._pack_path():
            return None
        if self.pack.suffix.lower() == ".siq":
            return self._in_package(name)
        return self._beside_pack(name)

    def _show(self, shown: dict[str, str] | None) -> None:
        self.shown = shown
        self.on_change(shown)

    def _in_package(self, name: str) -> Media | None:
        try:
            with zipfile.ZipFile(self.pack) as package:
                entries = {info.filename: info for info in package.infolist()}
                for folder, kind in FOLDERS.items():
                    for spelled in dict.fromkeys((name, quote(name))):
                        info = entries.get(f"{folder}/{spelled}")
                        if info is not None and info.file_size <= MAX_MEDIA_BYTES:
                            pack = self.pack
                            return Media(kind, _content_type(name, kind), info.file_size,
                                         functools.partial(_zip_entry, pack, info.filename))
        except (OSError, zipfile.BadZipFile):
            return None
        return None

    def _beside_pack(self, name: str) -> Media | None:
        folder = self.pack.parent.resolve()
        path = (folder / name).resolve()
        if not path.is_relative_to(folder) or not path.is_file():
            return None
        kind = (mimetypes.guess_type(path.name)[0] or "").partition("/")[0]
        if kind not in KINDS or path.stat().st_size > MAX_MEDIA_BYTES:
            return None
        return Media(kind, _content_type(name, kind), path.stat().st_size, functools.partial(_file, path))


def _file(path: Path) -> Chunks:
    return path.open("rb")


def _zip_entry(pack: Path, entry: str) -> Chunks:
    """One entry of the package, read as a stream (closing it closes the package)."""
    package = zipfile.ZipFile(pack)
    try:
        stream = package.open(entry)
    except BaseException:
        package.close()
        raise
    return _ClosingBoth(stream, package)


class _ClosingBoth:
    """An entry's stream that closes its package with it."""

    def __init__(self, stream: IO[bytes], package: zipfile.ZipFile) -> None:
        self._stream, self._package = stream, package

    def read(self, size: int = -1, /) -> bytes:
        return self._stream.read(size)

    def close(self) -> None:
        try:
            self._stream.close()
        finally:
            self._package.close()


def _content_type(name: str, kind: str) -> str:
    guessed = mimetypes.guess_type(name)[0]
    return guessed if guessed and guessed.startswith(f"{kind}/") else "application/octet-stream"
