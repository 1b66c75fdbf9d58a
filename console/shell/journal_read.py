"""Reading today's journal for a resume: its config line, its last checkpoint and what came
after it, without reading the rest (memory and time do not grow with the evening).

Contract: `read_journal(path)` gives a `JournalRead`: the config line (`header`), the last
checkpoint whose code is this code's (`checkpoint`, console/shell/checkpoint.py; None if the
journal has none, or only of other code), the lines after it (`lines`: every line after the
config line when there is no usable checkpoint), a torn last line (a power cut mid-write:
not JSON; left out and reported), and `keep_bytes`/`needs_newline`: how much of the file a
resumed start keeps before it appends (a torn line is cut off; a whole last line that lacks
only its newline gets one). OSError as reading raises. `referenced(lines)`: what the lines
before the checkpoint hold that it refers to by key (console/shell/checkpoint.py), read only
when the checkpoint refers to something.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from console.shell.checkpoint import Checkpoint, read_checkpoint

__all__ = ["JournalRead", "read_journal"]

_CHUNK = 1 << 16  # a checkpoint comes every ~1 500 lines (~70 KB): one or two reads
_MARK = b'\n{"checkpoint"'


@dataclass(frozen=True)
class JournalRead:
    header: str  # the first line ("" for an empty file)
    checkpoint: Checkpoint | None
    lines: list[str]  # after the checkpoint (or after the header), the torn last line left out
    torn: str | None
    keep_bytes: int
    needs_newline: bool
    own_settings: bool  # the last checkpoint says the fight was resumed with its own settings


def read_journal(path: Path, key: bytes | None = None,
                 referenced: Callable[[Iterable[str]], Mapping[str, object]] | None = None) -> JournalRead:
    with path.open("rb") as file:
        size = os.fstat(file.fileno()).st_size
        header = file.readline()
        start = len(header)
        found = _last_checkpoint(file, start, size)
        checkpoint, own = None, False
        if found is not None:
            file.seek(found)
            line = file.readline()
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                obj = None
            own = isinstance(obj, dict) and obj.get("own_settings") is True
            resolve = _resolver(file, len(header), found, referenced)
            checkpoint = read_checkpoint(obj, key, resolve)
            if checkpoint is not None:
                start = found + len(line)
        file.seek(start)
        rest = file.read()
    chunks = rest.split(b"\n")
    last = chunks.pop()  # b"" when the file ends with a newline
    torn: str | None = None
    keep, needs_newline = size, False
    if last.strip():
        text = last.decode("utf-8", errors="replace")
        if _is_json_object(text):
            chunks.append(last)  # complete: only its newline is missing
            needs_newline = True
        else:
            torn = text  # a power cut mid-write: left out, reported
            keep = size - len(last)
    elif last:
        keep = size - len(last)  # stray blanks after the last newline
    return JournalRead(header=header.decode("utf-8", errors="replace").rstrip("\n"), checkpoint=checkpoint,
                       lines=[c.decode("utf-8", errors="replace") for c in chunks], torn=torn,
                       keep_bytes=keep, needs_newline=needs_newline, own_settings=own)


def _resolver(file: BinaryIO, start: int, end: int,
              referenced: Callable[[Iterable[str]], Mapping[str, object]] | None) -> Callable[[str], object]:
    """The checkpoint's `resolve`: reads the lines from `start` to `end` (before it) once, at
    the first key asked for."""
    found: list[Mapping[str, object]] = []

    def resolve(ref: str) -> object:
        if referenced is None:
            raise KeyError(ref)
        if not found:
            file.seek(start)
            text = file.read(end - start).decode("utf-8", errors="replace")
            found.append(referenced(text.splitlines()))
        return found[0][ref]

    return resolve


def _last_checkpoint(file: BinaryIO, start: int, size: int) -> int | None:
    """The offset of the last line beginning ``{"checkpoint"`` at or after `start` (a line's
    start), read backwards in chunks (the checkpoints are near the end: the whole file is read
    only without one). The newline before `start` is searched too: it begins the mark."""
    floor = max(0, start - 1)
    end = size
    carry = b""
    while end > floor:
        begin = max(floor, end - _CHUNK)
        file.seek(begin)
        block = file.read(end - begin) + carry
        at = block.rfind(_MARK)
        if at >= 0:
            return begin + at + 1
        carry = block[: len(_MARK)]  # a mark split across two chunks
        end = begin
    return None


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False
