"""Storing the top's calibration in the user's TOML config, style-preserving (tomlkit).

Contract:

* :func:`set_table_keys` sets keys of the ``table`` table in a TOML text and keeps every
  other byte (comments, spacing, quoting, inline tables and arrays, CRLF endings): the
  document is edited through tomlkit, never through a lexer of our own.  An existing key
  keeps its line (key spelling, spacing, trailing comment); a missing key is added, under a
  comment, after the last key of the section; a missing section is appended at the end.
* :func:`check_storable` is everything :func:`store_calibration` does except writing: the
  file reads, the edit gives exactly the values asked for with nothing else changed, and a
  file can be created in its directory.  ``calibrate`` calls it before the measurement, so
  an unwritable config is reported before the host spends time at the top.
* :func:`store_calibration` writes the edit atomically (a temporary file in the same
  directory, fsync, rename) next to a ``.bak`` copy of the previous file and proves the
  result with :func:`console.config.load_config`, putting the original back otherwise.
  Ctrl+C and SIGTERM arriving meanwhile are held until the write is over and then dropped:
  the file is never half-written, no temporary file stays behind, and the outcome reported
  is the true one.  Failures raise :class:`StoreError` naming the file; the config is then
  as it was.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import FrameType

import tomlkit
import tomlkit.exceptions
from tomlkit.items import AoT, Comment, InlineTable, Item, Table, Whitespace

from console.config import ConfigError
from console.engine.spin.sectors import Calibration
from console.games import load_config
from console.games.chgk.config import TableSection

__all__ = [
    "KEY_COMMENTS",
    "OFFSET_DECIMALS",
    "StoreError",
    "StoredCalibration",
    "check_storable",
    "format_offset",
    "set_table_keys",
    "signals_held",
    "store_calibration",
]

SECTION = "table"
OFFSET_DECIMALS = 2  # 0.01° in the file: well below the sensor's 0.088° step
KEY_COMMENTS = {
    "zero_offset_deg": "Sensor angle (degrees) at the boundary before sector 1; "
                       "written by `chgk-console calibrate`.",
    "clockwise_increases": "The sensor's raw angle grows when the arrow turns clockwise (seen from above).",
}


class StoreError(Exception):
    """The calibration could not be stored; the message (Russian) says why and what to do.
    The config file is as it was."""


@dataclass(frozen=True, slots=True)
class StoredCalibration:
    """What :func:`store_calibration` wrote, and where."""

    path: str  # the file written (symlinks resolved)
    backup: str  # the previous version
    zero_offset_deg: float  # as written (rounded to OFFSET_DECIMALS)
    clockwise_increases: bool


def format_offset(zero_offset_deg: float) -> str:
    """The offset as written to the file: [0, 360) with OFFSET_DECIMALS decimals."""
    text = f"{zero_offset_deg % 360.0:.{OFFSET_DECIMALS}f}"
    return f"{0.0:.{OFFSET_DECIMALS}f}" if float(text) >= 360.0 else text  # 359.999 rounds up


# -- editing the text ---------------------------------------------------------------------------------


def set_table_keys(text: str, values: Mapping[str, str]) -> str:
    """``text`` (a valid TOML document) with each key of ``values`` set in the ``table``
    table to the TOML value text given for it (``"12.30"``, ``"true"``); see the module
    docstring for what is kept.  Raises tomlkit's exceptions for text it cannot parse, and
    ValueError when ``table`` is not a table."""
    # tomlkit writes the lines it adds with "\n". A file that ends every line with CRLF is
    # edited in LF and turned back, which restores its bytes exactly (TOML reads a CRLF in
    # a multi-line string as a newline too, so the values do not change either).
    crlf = "\n" in text and text.count("\r\n") == text.count("\n")
    if text and not text.endswith("\n"):
        text += "\r\n" if crlf else "\n"  # what comes after must start on a line of its own
    doc = tomlkit.parse(text.replace("\r\n", "\n") if crlf else text)
    items = {key: tomlkit.value(raw) for key, raw in values.items()}
    section = doc.get(SECTION)
    if section is not None and not isinstance(section, (Table, InlineTable)):
        raise ValueError(f"{SECTION} is not a table")
    if section is None:
        section = tomlkit.table()
        _add_commented(section, items)
        if doc.as_string().strip():
            doc.add(tomlkit.nl())  # a blank line between the last section and ours
        doc.add(SECTION, section)
    elif isinstance(plain := doc.item(SECTION), Table) and _needs_rebuild(plain, items):
        doc[SECTION] = _rebuilt(plain, items)
    else:
        commented = isinstance(plain, Table) and not plain.is_super_table()  # not inline, not dotted
        for key, item in items.items():
            if key not in section and commented:
                section.add(tomlkit.comment(KEY_COMMENTS.get(key, key)))
            section[key] = item
    result = doc.as_string()
    return result.replace("\n", "\r\n") if crlf else result


def _needs_rebuild(section: Table, items: Mapping[str, object]) -> bool:
    """True when a key is missing from a ``[table]`` whose key-values are followed by a
    comment or a blank line: tomlkit would add the key after them, where they introduce the
    next section.  tomlkit has no public way to insert at a position, so such a table is
    rebuilt with the keys in front of them."""
    if section.is_super_table() or all(k in section for k in items):
        return False
    body = section.value.body
    return any(k is None for k, _ in body[_after_last_value(section):])


def _after_last_value(section: Table) -> int:
    """The index in the table's body just after its last key-value (sub-tables excluded)."""
    body = section.value.body
    return 1 + max((i for i, (k, v) in enumerate(body) if k is not None and not isinstance(v, (Table, AoT))),
                   default=-1)


def _rebuilt(section: Table, items: Mapping[str, Item]) -> Table:
    """A copy of ``section`` with ``items`` added after its last key-value.  (Replacing the
    table makes tomlkit add a blank line after a table that ends in a comment, and write an
    oddly quoted header like ``[ "table" ]`` as ``[table]``: cosmetic, and only here.)"""
    cut = _after_last_value(section)
    body = section.value.body
    new = tomlkit.table()
    missing = {key: item for key, item in items.items() if key not in section}
    for index, (body_key, value) in enumerate(body):
        if index == cut:
            _add_commented(new, missing)
        if isinstance(value, (Comment, Whitespace)):
            new.add(value)
        elif body_key is not None:
            new.add(body_key, value)
    if cut == len(body):
        _add_commented(new, missing)
    for key, item in items.items():
        if key not in missing:
            new[key] = item
    return new


def _add_commented(section: Table, items: Mapping[str, Item]) -> None:
    for key, item in items.items():
        section.add(tomlkit.comment(KEY_COMMENTS.get(key, key)))
        section.add(key, item)


# -- checking and storing -----------------------------------------------------------------------------


def check_storable(config_path: str) -> str:
    """Check that a calibration can be stored in ``config_path`` (see the module docstring);
    returns the file that would be written (symlinks resolved).  Raises StoreError."""
    target = os.path.realpath(config_path)
    _, text, data = _read(target)
    current = data.get(SECTION)
    old = current if isinstance(current, dict) else {}
    # The file's own values if it has them (an edit that changes nothing must work too),
    # otherwise any valid pair.
    offset = old.get("zero_offset_deg", 0.0)
    direction = old.get("clockwise_increases", True)
    calibration = Calibration(float(offset) if isinstance(offset, (int, float)) else 0.0,
                              direction if isinstance(direction, bool) else True)
    _edited(target, text, data, calibration)
    directory = os.path.dirname(target)
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise StoreError(f"в каталоге {directory} нельзя создать файл ({_why(exc)}), а без этого "
                         f"{target} не переписать: запустите калибровку от пользователя, которому "
                         f"можно писать в этот каталог") from exc
    return target


def store_calibration(config_path: str, calibration: Calibration) -> StoredCalibration:
    """Write ``calibration`` into the config file's ``table`` (see the module docstring).

    Both the file and its ``.bak`` are replaced atomically, with the original's mode and,
    where allowed, owner.  Raises StoreError.
    """
    target = os.path.realpath(config_path)  # a symlinked config stays a symlink
    original, text, data = _read(target)
    updated, expected = _edited(target, text, data, calibration)
    backup = target + ".bak"
    with signals_held():
        try:
            _atomic_write(backup, original, like=target)
            _atomic_write(target, updated.encode("utf-8"), like=target)
        except OSError as exc:
            raise StoreError(f"не удалось записать {target}: {_why(exc)}") from exc
        try:
            table = load_config(target).section(TableSection)
            problem = None
            if (table.zero_offset_deg, table.clockwise_increases) != expected:
                problem = (f"после записи файл даёт zero_offset_deg = {table.zero_offset_deg}, "
                           f"clockwise_increases = {table.clockwise_increases}")
        except ConfigError as exc:
            problem = f"после записи конфигурация не читается ({exc})"
        if problem is not None:
            try:
                _atomic_write(target, original, like=target)
            except OSError as exc:
                raise StoreError(f"{problem}; вернуть прежний файл не удалось ({_why(exc)}): "
                                 f"он сохранён в {backup}") from exc
            raise StoreError(f"{problem}; прежний файл возвращён на место")
    return StoredCalibration(target, backup, expected[0], expected[1])


def _read(target: str) -> tuple[bytes, str, dict[str, object]]:
    """The file's bytes, text and tomllib reading; StoreError naming the file."""
    try:
        with open(target, "rb") as f:
            original = f.read()
        text = original.decode("utf-8")
        return original, text, tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise StoreError(f"не удалось прочитать {target}: {_why(exc)}") from exc


def _edited(target: str, text: str, data: Mapping[str, object],
            calibration: Calibration) -> tuple[str, tuple[float, bool]]:
    """The new text and the values it holds.  The edit is proven before anything is written:
    the new text must read (tomllib) as the old data with just the two keys set."""
    offset_text = format_offset(calibration.zero_offset_deg)
    direction = calibration.clockwise_increases
    direction_text = "true" if direction else "false"
    values = {"zero_offset_deg": offset_text, "clockwise_increases": direction_text}
    old = data.get(SECTION, {})
    keys = {"zero_offset_deg": float(offset_text), "clockwise_increases": direction}
    expected = {**data, SECTION: {**old, **keys}} if isinstance(old, dict) else None
    try:
        updated = set_table_keys(text, values)
        ok = expected is not None and tomllib.loads(updated) == expected
    except (tomlkit.exceptions.TOMLKitError, tomllib.TOMLDecodeError, ValueError):
        ok = False
    if not ok:
        raise StoreError(f"{target} не удаётся дополнить, не задев остального (table там не таблица "
                         f"или записана так, что её не переписать): впишите вручную в таблицу table "
                         f"zero_offset_deg = {offset_text} и clockwise_increases = {direction_text}")
    return updated, (float(offset_text), direction)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl+C (SIGINT) and SIGTERM are held off while the body runs and dropped after it: a
    signal in the middle of writing must neither leave a temporary file behind nor make the
    caller report an interruption after the file was in fact written.  The body lasts
    milliseconds; a second signal after it acts as usual.  Off the main thread (where
    Python cannot set handlers) the body runs unprotected."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def hold(signum: int, frame: FrameType | None) -> None:
        """Dropped: the file is being written and the program ends right after anyway."""

    previous = {sig: signal.signal(sig, hold) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _atomic_write(path: str, data: bytes, *, like: str) -> None:
    """Replace ``path`` with ``data`` all at once: readers see the old file or the new one,
    never half of it, even if the power fails (the data is synced before the rename)."""
    directory = os.path.dirname(path) or "."
    info = os.stat(like)
    fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), info.st_mode & 0o7777)
            if (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
                # Run with sudo on a file of the console's user: keep it theirs.
                with contextlib.suppress(PermissionError):
                    os.fchown(f.fileno(), info.st_uid, info.st_gid)
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    # The rename itself lives in the directory: sync it too (not possible everywhere).
    with contextlib.suppress(OSError):
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)
